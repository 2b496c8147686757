package certgen

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// A Traefik dynamic configuration (YAML or TOML) as the file provider reads
// it: tls.certificates (certFile, keyFile, stores) and tls.stores.NAME.
// defaultCertificate; keys match case-insensitively, as Traefik's do. A
// certFile or keyFile holding "-----BEGIN" is PEM, else a path relative to
// the file's directory (Traefik uses its working directory). The rest is
// ignored; a store a certificate names is declared, as Traefik does.

// tnode is a YAML or TOML value, reduced to what the reader needs.
type tnode struct {
	line  int
	kind  byte // 'm' mapping, 'l' list, 's' string, 'o' other scalar, 0 null
	str   string
	keys  []string
	vals  []*tnode
	items []*tnode
}

// get returns the value of key in a mapping, matching case-insensitively.
func (n *tnode) get(key string) *tnode {
	if n == nil || n.kind != 'm' {
		return nil
	}
	for i, k := range n.keys {
		if strings.EqualFold(k, key) {
			return n.vals[i]
		}
	}
	return nil
}

func (n *tnode) what() string {
	return map[byte]string{'m': "a mapping", 'l': "a list", 's': "a string", 'o': "a number, boolean or date", 0: "null"}[n.kind]
}

// yamlTree converts n, spending one unit of budget per node so that alias
// expansion cannot grow without bound.
func yamlTree(n *yaml.Node, budget *int, depth int) (*tnode, error) {
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("line %d: too many values (aliases expand beyond the file's size)", n.Line)
	}
	if depth > 64 {
		return nil, fmt.Errorf("line %d: nested too deeply", n.Line)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlTree(n.Content[0], budget, depth+1)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, fmt.Errorf("line %d: unknown alias", n.Line)
		}
		t, err := yamlTree(n.Alias, budget, depth+1)
		if t != nil {
			t.line = n.Line
		}
		return t, err
	case yaml.MappingNode:
		t := &tnode{line: n.Line, kind: 'm'}
		var merges []*tnode
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			v, err := yamlTree(n.Content[i+1], budget, depth+1)
			if err != nil {
				return nil, err
			}
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				merges = append(merges, v)
				continue
			}
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a key that is not a string", k.Line)
			}
			t.keys = append(t.keys, k.Value)
			t.vals = append(t.vals, v)
		}
		for _, m := range merges {
			var from []*tnode
			switch {
			case m != nil && m.kind == 'm':
				from = []*tnode{m}
			case m != nil && m.kind == 'l':
				from = m.items
			}
			for _, f := range from {
				if f == nil || f.kind != 'm' {
					continue
				}
				for i, k := range f.keys {
					if t.get(k) == nil {
						t.keys = append(t.keys, k)
						t.vals = append(t.vals, f.vals[i])
					}
				}
			}
		}
		return t, nil
	case yaml.SequenceNode:
		t := &tnode{line: n.Line, kind: 'l'}
		for _, c := range n.Content {
			v, err := yamlTree(c, budget, depth+1)
			if err != nil {
				return nil, err
			}
			t.items = append(t.items, v)
		}
		return t, nil
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return &tnode{line: n.Line}, nil
		}
		return &tnode{line: n.Line, kind: 's', str: n.Value}, nil
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node", n.Line)
}

// tomlTree converts a decoded TOML value.
func tomlTree(v any, depth int) *tnode {
	if depth > 64 {
		return &tnode{kind: 'o'}
	}
	switch v := v.(type) {
	case map[string]any:
		t := &tnode{kind: 'm'}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			t.keys = append(t.keys, k)
			t.vals = append(t.vals, tomlTree(v[k], depth+1))
		}
		return t
	case []map[string]any:
		return tomlList(v, depth)
	case []any:
		return tomlList(v, depth)
	case string:
		return &tnode{kind: 's', str: v}
	case nil:
		return &tnode{}
	}
	return &tnode{kind: 'o'}
}

func tomlList[T any](v []T, depth int) *tnode {
	t := &tnode{kind: 'l'}
	for _, m := range v {
		t.items = append(t.items, tomlTree(m, depth+1))
	}
	return t
}

// parseTraefikTLS parses a configuration file and returns its tls section
// (nil when it has none).
func parseTraefikTLS(name string, data []byte, kind SourceKind) (*tnode, error) {
	if kind == KindTraefikTOML {
		var m map[string]any
		if _, err := toml.Decode(string(data), &m); err != nil {
			var pe toml.ParseError
			if errors.As(err, &pe) {
				// pe.Error() names the line and the last key only; the
				// longer forms quote the file's text.
				return nil, &SourceError{File: name, Line: pe.Position.Line, Err: errors.New("TOML: " + pe.Message)}
			}
			return nil, &SourceError{File: name, Err: fmt.Errorf("TOML: %v", err)}
		}
		root := tomlTree(m, 0)
		return root.get("tls"), nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &SourceError{File: name, Err: fmt.Errorf("YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))}
	}
	budget := 2*len(data) + 4096
	root, err := yamlTree(&doc, &budget, 0)
	if err != nil {
		return nil, &SourceError{File: name, Err: fmt.Errorf("YAML: %v", err)}
	}
	if root == nil {
		return nil, nil
	}
	if root.kind != 'm' {
		return nil, &SourceError{File: name, Line: root.line, Err: fmt.Errorf("the configuration is %s, want a mapping", root.what())}
	}
	return root.get("tls"), nil
}

// traefikEntry is one certificate of the configuration to read.
type traefikEntry struct {
	where      string
	line       int
	certFile   string
	keyFile    string
	stores     []string
	defaultFor string // store name, for a default certificate
	isDefault  bool
	skips      []Skip // of reading it
}

func loadTraefik(path string, data []byte, kind SourceKind, opts SourceOptions) (*Source, error) {
	name := filepath.Base(path)
	dir := filepath.Dir(path)
	src, entries, err := planTraefik(name, data, kind)
	if err != nil {
		return nil, err
	}
	src.Defaults = make(map[string]*SourceCert)
	src.collect(len(entries), opts.Workers, func(i int, cc *certCache) (*SourceCert, []Skip) {
		return entries[i].load(name, dir, cc, opts)
	}, func(i int, c *SourceCert) bool {
		if entries[i].isDefault {
			src.Defaults[entries[i].defaultFor] = c
		}
		return !entries[i].isDefault
	})
	return src, nil
}

// planTraefik parses a configuration and lists the certificates to read,
// without reading any file.
func planTraefik(name string, data []byte, kind SourceKind) (*Source, []*traefikEntry, error) {
	tls, err := parseTraefikTLS(name, data, kind)
	if err != nil {
		return nil, nil, err
	}
	src := &Source{}
	if tls == nil {
		src.Skipped = append(src.Skipped, Skip{File: name, Reason: "no tls section", Ignored: true})
		return src, nil, nil
	}
	pl := traefikPlan{file: name}
	if tls.kind != 'm' {
		return nil, nil, pl.typeErr(tls, "tls", "a mapping")
	}
	entries, err := pl.certificates(tls.get("certificates"))
	if err != nil {
		return nil, nil, err
	}
	defaults, err := pl.stores(tls.get("stores"), src)
	if err != nil {
		return nil, nil, err
	}
	return src, append(entries, defaults...), nil
}

// traefikPlan reads the tls section of a Traefik configuration file.
type traefikPlan struct{ file string }

// typeErr says that n, at where, is not the want it should be.
func (pl traefikPlan) typeErr(n *tnode, where, want string) error {
	if n == nil {
		n = &tnode{}
	}
	return &SourceError{File: pl.file, Line: n.line, Where: where, Err: fmt.Errorf("is %s, want %s", n.what(), want)}
}

// pair reads a mapping with certFile and keyFile.
func (pl traefikPlan) pair(n *tnode, where string) (*traefikEntry, error) {
	if n == nil || n.kind != 'm' {
		return nil, pl.typeErr(n, where, "a mapping with certFile and keyFile")
	}
	e := &traefikEntry{where: where, line: n.line}
	for _, f := range []struct {
		key string
		dst *string
	}{{"certFile", &e.certFile}, {"keyFile", &e.keyFile}} {
		v := n.get(f.key)
		if v == nil || v.kind == 0 {
			continue
		}
		if v.kind != 's' {
			return nil, pl.typeErr(v, where+"."+f.key, "a string")
		}
		*f.dst = v.str
	}
	return e, nil
}

// certificates reads tls.certificates: pairs with their stores.
func (pl traefikPlan) certificates(certs *tnode) ([]*traefikEntry, error) {
	if certs == nil || certs.kind == 0 {
		return nil, nil
	}
	if certs.kind != 'l' {
		return nil, pl.typeErr(certs, "tls.certificates", "a list")
	}
	var entries []*traefikEntry
	for i, c := range certs.items {
		where := fmt.Sprintf("tls.certificates[%d]", i)
		e, err := pl.pair(c, where)
		if err != nil {
			return nil, err
		}
		if st := c.get("stores"); st != nil && st.kind != 0 {
			if st.kind != 'l' {
				return nil, pl.typeErr(st, where+".stores", "a list of store names")
			}
			for j, s := range st.items {
				if s == nil || s.kind != 's' {
					return nil, pl.typeErr(s, fmt.Sprintf("%s.stores[%d]", where, j), "a store name")
				}
				e.stores = append(e.stores, s.str)
			}
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// stores reads tls.stores: the store names go to src.Stores, and each
// store's defaultCertificate is an entry.
func (pl traefikPlan) stores(stores *tnode, src *Source) ([]*traefikEntry, error) {
	if stores == nil || stores.kind == 0 {
		return nil, nil
	}
	if stores.kind != 'm' {
		return nil, pl.typeErr(stores, "tls.stores", "a mapping of store names")
	}
	var entries []*traefikEntry
	for i, st := range stores.keys {
		if st == "" {
			return nil, &SourceError{File: pl.file, Line: stores.line, Where: "tls.stores", Err: errors.New("a store with an empty name")}
		}
		src.Stores = append(src.Stores, st)
		v := stores.vals[i]
		if v == nil || v.kind == 0 {
			continue
		}
		if v.kind != 'm' {
			return nil, pl.typeErr(v, "tls.stores."+st, "a mapping")
		}
		if d := v.get("defaultCertificate"); d != nil && d.kind != 0 {
			e, err := pl.pair(d, "tls.stores."+st+".defaultCertificate")
			if err != nil {
				return nil, err
			}
			e.isDefault, e.defaultFor = true, st
			entries = append(entries, e)
		}
	}
	return entries, nil
}

// load reads and pairs one entry's certificate and key.
func (e *traefikEntry) load(config, dir string, cc *certCache, opts SourceOptions) (*SourceCert, []Skip) {
	problem := func(format string, args ...any) (*SourceCert, []Skip) {
		return nil, append(e.skips, Skip{File: config, Line: e.line, Where: e.where, Reason: fmt.Sprintf(format, args...)})
	}
	switch {
	case e.certFile == "" && e.keyFile == "":
		return problem("no certFile and no keyFile")
	case e.certFile == "":
		return problem("no certFile")
	case e.keyFile == "":
		return problem("no keyFile")
	}
	certItems, ok := e.read("certFile", e.certFile, config, dir, cc, opts)
	if !ok {
		return nil, e.skips
	}
	keyItems, ok := e.read("keyFile", e.keyFile, config, dir, cc, opts)
	if !ok {
		return nil, e.skips
	}
	res, reason := pairContent(certItems, keyItems)
	if reason != "" {
		return problem("%s", reason)
	}
	res.File, res.Line, res.Where = config, e.line, e.where
	res.Stores = normalizeStores(e.stores)
	return res, e.skips
}

// read returns the PEM items of a certFile or keyFile value: inline
// content, or the file it names.
func (e *traefikEntry) read(field, value, config, dir string, cc *certCache, opts SourceOptions) ([]pemItem, bool) {
	where := e.where + "." + field
	if strings.Contains(value, "-----BEGIN") {
		items, skips := parseBundle([]byte(value), config, cc)
		for _, s := range skips {
			if s.Reason == "no PEM blocks" {
				continue
			}
			// Lines inside inline content would mislead: name the entry.
			s.Line, s.Where = e.line, where+" (inline PEM)"
			e.skips = append(e.skips, s)
		}
		return items, true
	}
	p := value
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	name := value
	if r, err := filepath.Rel(dir, p); err == nil && filepath.IsLocal(r) {
		name = filepath.ToSlash(r)
	}
	data, err := readCapped(p, opts.MaxFileSize, "MaxFileSize")
	if err != nil {
		e.skips = append(e.skips, Skip{File: config, Line: e.line, Where: where, Reason: name + ": " + err.Error()})
		return nil, false
	}
	items, skips := parseBundle(data, name, cc)
	e.skips = append(e.skips, skips...)
	return items, true
}

// pairContent makes a certificate of a chain's items (leaf first) and a
// key's items (the first key is used), as a proxy pairs a certificate
// file with a key file. The reason is "" on success.
func pairContent(certItems, keyItems []pemItem) (*SourceCert, string) {
	var leaf *certInfo
	var chain []*certInfo
	for _, it := range certItems {
		if it.cert == nil {
			continue
		}
		if leaf == nil {
			leaf = it.cert
		} else {
			chain = append(chain, it.cert)
		}
	}
	if leaf == nil {
		return nil, "no certificate"
	}
	var key *keyInfo
	for _, it := range keyItems {
		if it.key != nil {
			key = it.key
			break
		}
	}
	if key == nil {
		return nil, "no private key"
	}
	if key.spki != leaf.spki {
		return nil, "private key does not match the certificate"
	}
	facts := leaf.facts
	facts.ChainLen = 1 + len(chain)
	return &SourceCert{
		Certificate: certstoreCert(chainPEM(leaf, chain), encodePEM(key.pemType, key.der), nil),
		Facts:       facts,
	}, ""
}
