package certgen

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// A Kubernetes Secret list (kubectl get secrets -o json), decoded as a
// stream: each kubernetes.io/tls item gives a certificate (tls.crt, tls.key)
// in the store of its namespace (unless IgnoreNamespaces); errors name the
// item, its namespace/name and line.

const secretTypeTLS = "kubernetes.io/tls"

type secretItem struct {
	Kind     string `json:"kind"`
	Type     string `json:"type"`
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Data map[string]string `json:"data"`
}

func loadSecrets(name string, data []byte, opts SourceOptions) (*Source, error) {
	d := &secretDecoder{name: name, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	items, offsets, err := d.list()
	if err != nil {
		return nil, err
	}
	src := &Source{}
	line, last := 1, int64(0)
	itemLines := make([]int, len(items))
	for i, off := range offsets {
		line += bytes.Count(data[last:off], newline)
		itemLines[i], last = line, off
		if items[i].Type != secretTypeTLS {
			src.OtherSecrets++
		}
	}
	src.collect(len(items), opts.Workers, func(i int, cc *certCache) (*SourceCert, []Skip) {
		return secretCert(&items[i], i, itemLines[i], name, cc, opts)
	}, nil)
	return src, nil
}

// secretDecoder decodes a secret list, naming the line of an error.
type secretDecoder struct {
	name string
	data []byte
	dec  *json.Decoder
}

func (d *secretDecoder) fail(off int64, format string, args ...any) error {
	return &SourceError{File: d.name, Line: lineAt(d.data, off), Err: fmt.Errorf(format, args...)}
}

// jsonErr is a decoding error at the offset it names, or where the
// decoder stopped.
func (d *secretDecoder) jsonErr(err error) error {
	off := d.dec.InputOffset()
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		return d.fail(te.Offset, "JSON: %s is a %s, want %s", cmp.Or(te.Field, "a value"), te.Value, te.Type)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return d.fail(int64(len(d.data)), "JSON: unexpected end of input")
	}
	return d.fail(off, "JSON: %v", err)
}

// list decodes the list object, one item at a time, and returns its items
// with the offset each starts at.
func (d *secretDecoder) list() (items []secretItem, offsets []int64, err error) {
	dec := d.dec
	if tok, err := dec.Token(); err != nil {
		return nil, nil, d.jsonErr(err)
	} else if dl, ok := tok.(json.Delim); !ok || dl != '{' {
		return nil, nil, d.fail(0, "want a JSON object (kubectl get secrets -o json)")
	}
	var kind string
	haveKind := false
	for dec.More() {
		keyOff := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, d.jsonErr(err)
		}
		key, _ := tok.(string)
		switch key {
		case "kind":
			if err := dec.Decode(&kind); err != nil {
				return nil, nil, d.jsonErr(err)
			}
			haveKind = true
		case "items":
			if items, offsets, err = d.items(keyOff, items, offsets); err != nil {
				return nil, nil, err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, nil, d.jsonErr(err)
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, d.jsonErr(err)
	}
	if !haveKind || (kind != "List" && kind != "SecretList") {
		return nil, nil, d.fail(0, "kind is %q, want \"List\" (as kubectl get secrets -o json prints)", kind)
	}
	if _, err := dec.Token(); err == nil {
		return nil, nil, d.fail(dec.InputOffset(), "JSON: data after the list")
	}
	return items, offsets, nil
}

// items decodes the value of "items" (at keyOff), a list or null,
// appending to items and offsets.
func (d *secretDecoder) items(keyOff int64, items []secretItem, offsets []int64) ([]secretItem, []int64, error) {
	dec := d.dec
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, d.jsonErr(err)
	}
	if dl, ok := tok.(json.Delim); !ok || dl != '[' {
		if tok == nil {
			return items, offsets, nil // "items": null
		}
		return nil, nil, d.fail(keyOff, "items is not a list")
	}
	for dec.More() {
		off := int64(len(d.data) - len(bytes.TrimLeft(d.data[dec.InputOffset():], " \t\r\n,"))) // where the item starts
		var it secretItem
		if err := dec.Decode(&it); err != nil {
			return nil, nil, d.jsonErr(err)
		}
		items = append(items, it)
		offsets = append(offsets, off)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, d.jsonErr(err)
	}
	return items, offsets, nil
}

// secretCert reads one TLS Secret.
func secretCert(it *secretItem, i, line int, file string, cc *certCache, opts SourceOptions) (*SourceCert, []Skip) {
	if it.Type != secretTypeTLS {
		return nil, nil
	}
	where := fmt.Sprintf("items[%d] (%s/%s)", i, printable(it.Metadata.Namespace), printable(it.Metadata.Name))
	if it.Kind != "" && it.Kind != "Secret" {
		where = fmt.Sprintf("items[%d]", i)
		return nil, []Skip{{File: file, Line: line, Where: where, Reason: fmt.Sprintf("kind is %q, want \"Secret\"", it.Kind)}}
	}
	var skips []Skip
	problem := func(format string, args ...any) (*SourceCert, []Skip) {
		return nil, append(skips, Skip{File: file, Line: line, Where: where, Reason: fmt.Sprintf(format, args...)})
	}
	var parsed [2][]pemItem
	for k, field := range []string{"tls.crt", "tls.key"} {
		b64, ok := it.Data[field]
		if !ok || b64 == "" {
			return problem("no data[%q]", field)
		}
		if int64(base64.StdEncoding.DecodedLen(len(b64))) > opts.MaxFileSize+3 {
			return problem("data[%q] is over the %d-byte cap (raise SourceOptions.MaxFileSize)", field, opts.MaxFileSize)
		}
		pemData, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			// The decoder's message gives only an offset.
			return problem("data[%q] is not valid base64", field)
		}
		items, sk := parseBundle(pemData, file, cc)
		for _, s := range sk {
			if s.Reason == "no PEM blocks" && !s.Ignored {
				continue
			}
			s.Line, s.Where = line, fmt.Sprintf("%s data[%q] (PEM line %d)", where, field, s.Line)
			skips = append(skips, s)
		}
		parsed[k] = items
	}
	res, reason := pairContent(parsed[0], parsed[1])
	if reason != "" {
		return problem("%s", reason)
	}
	res.File, res.Line, res.Where = file, line, where
	if !opts.IgnoreNamespaces && it.Metadata.Namespace != "" {
		res.Stores = normalizeStores([]string{it.Metadata.Namespace})
	}
	return res, skips
}

// lineAt returns the line of a byte offset.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], newline)
}

// printable makes a Secret's name safe to put in a message: control
// characters become '?' and it is cut at 100 bytes.
func printable(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return '?'
		}
		return r
	}, s)
}
