package peercheck

import (
	"bytes"
	"fmt"
	"os"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// splitSides reads result files that hold the samples of several stores
// (one run of the peer binary per round, every side's store in each) and
// writes one file per side in which that side's store is renamed to
// store, so that certbench gate compares the sides benchmark by
// benchmark. Configuration lines (the round among them) and unit lines
// go to every file.
func splitSides(inputs []string, sides map[string]string, store string) error {
	outs := map[string]*os.File{}
	ws := map[string]*benchfmt.Writer{}
	for side, path := range sides {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		outs[side], ws[side] = f, benchfmt.NewWriter(f)
	}
	for _, in := range inputs {
		f, err := os.Open(in)
		if err != nil {
			return err
		}
		r := benchfmt.NewReader(f, in)
		for r.Scan() {
			switch rec := r.Result().(type) {
			case *benchfmt.Result:
				st, ok := results.NameValue(rec.Name, results.StoreKey)
				if !ok {
					continue
				}
				w, ok := ws[st]
				if !ok {
					continue
				}
				res := rec.Clone()
				res.Name = renameStore(res.Name, st, store)
				if err := w.Write(res); err != nil {
					f.Close()
					return err
				}
			case *benchfmt.UnitMetadata:
				for _, w := range ws {
					if err := w.Write(rec); err != nil {
						f.Close()
						return err
					}
				}
			case *benchfmt.SyntaxError:
				f.Close()
				return fmt.Errorf("%s: %w", in, rec)
			}
		}
		err = r.Err()
		f.Close()
		if err != nil {
			return err
		}
	}
	for _, f := range outs {
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

// renameStore replaces the value of the name's store key.
func renameStore(name benchfmt.Name, from, to string) benchfmt.Name {
	old := []byte("/" + results.StoreKey + "=" + from)
	i := bytes.Index(name, old)
	if i < 0 {
		return name
	}
	end := i + len(old)
	if end < len(name) && name[end] != '/' && name[end] != '-' {
		return name
	}
	out := append([]byte{}, name[:i]...)
	out = append(out, "/"+results.StoreKey+"="+to...)
	return append(out, name[end:]...)
}
