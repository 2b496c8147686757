package optimized

import (
	"crypto/tls"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/certstore"
)

// generation is one published configuration. It is built completely before
// it is published with one atomic store, and never modified afterwards, so
// a lookup (or a caller holding it through Store.Current) sees exactly one
// configuration.
type generation struct {
	// configured is false for the generation a new store starts with.
	configured bool
	// def is stores[certstore.DefaultStore], checked without hashing.
	def    *storeIndex
	stores map[string]*storeIndex

	// What the next Update needs to reuse entries and to recognise an
	// unchanged configuration; lookups do not read these.
	entries   map[pairKey]*entry // every entry: certificates and configured defaults
	keys      []pairKey          // content keys of Config.Certificates, in order
	sets      [][]string         // distinct non-empty Certificate.Stores lists
	setOf     []uint32           // per certificate: 0 for no Stores, else 1 + index in sets; nil when all are 0
	defaults  map[string]*entry  // configured default certificates by store
	generated *entry             // the generated default, when a store uses it
}

// storeIndex answers lookups for one store of a generation.
type storeIndex struct {
	exact map[string]*tls.Certificate     // DNS names and common names
	wild  map[string]*tls.Certificate     // "*.example.com" under "example.com"
	ip    map[netip.Addr]*tls.Certificate // canonical IP addresses
	def   *tls.Certificate                // configured or generated default
}

// maxStackName is the longest SNI lowercased on the stack. DNS names are
// at most 253 bytes, so longer ones (invalid anyway) take the allocating
// path.
const maxStackName = 256

// Certificate returns the certificate to present for hello in the named
// store, following the certstore lookup rules. It takes no lock and
// allocates nothing for valid host names: the SNI is lowercased into a
// stack buffer only when it has an upper-case letter, map lookups index with
// string(buf[:n]) (which Go does not allocate for), a wildcard lookup uses
// the parent domain as a substring, and an IP SNI is parsed with
// netip.ParseAddr into a netip.Addr key. Only SNI values that are not host
// names allocate: one with a non-ASCII byte is lowercased with
// strings.ToLower as certstore.NormalizeServerName does (allocating only
// when that changes it: a non-ASCII capital, an ASCII capital beside a
// non-ASCII byte, or invalid UTF-8), one longer than 256 bytes with an
// upper-case letter likewise, and one with a colon that is not an IPv6
// address costs netip.ParseAddr's error.
func (g *generation) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	var st *storeIndex
	if store == certstore.DefaultStore {
		st = g.def
	} else {
		st = g.stores[store]
	}
	if st == nil {
		if !g.configured {
			return nil, certstore.ErrNoCertificate
		}
		return nil, certstore.ErrUnknownStore
	}
	var sni string
	if hello != nil {
		sni = hello.ServerName
	}
	if c := st.find(sni); c != nil {
		return c, nil
	}
	if st.def != nil {
		return st.def, nil
	}
	return nil, certstore.ErrNoCertificate
}

// find returns the certificate matching sni, or nil when the default is to
// be served.
func (st *storeIndex) find(sni string) *tls.Certificate {
	if sni == "" {
		return nil
	}
	upper, nonASCII := false, false
	for i := 0; i < len(sni); i++ {
		if c := sni[i]; 'A' <= c && c <= 'Z' {
			upper = true
		} else if c >= 0x80 {
			nonASCII = true
		}
	}
	if nonASCII || upper && len(sni) > maxStackName {
		// Non-ASCII letters are lowered too (certstore.NormalizeServerName,
		// strings.ToLower semantics), whether or not there is an ASCII
		// capital; strings.ToLower returns sni itself, without
		// allocating, when nothing changes.
		return findLower(st, strings.ToLower(sni), sni)
	}
	if !upper {
		return findLower(st, sni, sni)
	}
	var buf [maxStackName]byte
	b := buf[:len(sni)]
	for i := 0; i < len(sni); i++ {
		c := sni[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return findLower(st, b, sni)
}

// findLower looks up name, the lowercased form of sni. It is generic so
// that the stack-buffer path indexes maps with string(b) without
// converting (and allocating) first.
func findLower[T string | []byte](st *storeIndex, name T, sni string) *tls.Certificate {
	if c := st.exact[string(name)]; c != nil {
		return c
	}
	if len(st.ip) == 0 && len(st.wild) == 0 {
		return nil
	}
	// An IP address SNI matches IP names only (exact keys never parse as
	// an address), and never a wildcard. Like
	// certstore.NormalizeServerName, parse the SNI as it came.
	if couldBeIP(sni) {
		if addr, err := netip.ParseAddr(sni); err == nil {
			return st.ip[addr.Unmap()]
		}
	}
	// certstore.WildcardParent: the part after the first dot, when the
	// first label and the parent are both non-empty.
	i := 0
	for i < len(name) && name[i] != '.' {
		i++
	}
	if i == 0 || i >= len(name)-1 {
		return nil
	}
	return st.wild[string(name[i+1:])]
}

// couldBeIP reports whether netip.ParseAddr may accept s. It is false for
// host names, so that lookups do not call ParseAddr for them: ParseAddr
// allocates its error. It is exact for IPv4 (four decimal fields of at most
// 255 without leading zeros, as ParseAddr wants), so only a string with a
// colon that is not an IPv6 address (no host name has one) costs an
// allocation.
func couldBeIP(s string) bool {
	if strings.IndexByte(s, ':') >= 0 {
		return true
	}
	fields, val, digits := 0, 0, 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			if digits == 0 || val > 255 {
				return false
			}
			fields++
			val, digits = 0, 0
			continue
		}
		c := s[i]
		if c < '0' || c > '9' || (digits == 1 && val == 0) || digits == 3 {
			return false
		}
		val = val*10 + int(c-'0')
		digits++
	}
	return fields == 4
}

// sameStores reports whether cfg, whose certificates are the same entries
// in the same order as g's, also has the same stores, store lists and
// default certificates, so that publishing it would change nothing.
func (g *generation) sameStores(s *Store, cfg *certstore.Config, defStores []string, now, genExpiry time.Time) bool {
	n := len(cfg.Stores)
	if _, ok := cfg.Stores[certstore.DefaultStore]; !ok {
		n++
	}
	if n != len(g.stores) || len(defStores) != len(g.defaults) {
		return false
	}
	for name := range cfg.Stores {
		if g.stores[name] == nil {
			return false
		}
	}
	for _, name := range defStores {
		e := g.entries[s.keyOf(cfg.Stores[name].DefaultCertificate)]
		if e == nil || g.defaults[name] != e {
			return false
		}
	}
	if g.generated != nil && !now.Before(genExpiry) {
		return false
	}
	for i := range cfg.Certificates {
		want := cfg.Certificates[i].Stores
		var have []string
		if g.setOf != nil && g.setOf[i] != 0 {
			have = g.sets[g.setOf[i]-1]
		}
		if len(want) != len(have) || !slices.Equal(want, have) {
			return false
		}
	}
	return true
}

// storeBuild is a store index under construction, with the map sizes.
type storeBuild struct {
	st                 *storeIndex
	nExact, nWild, nIP int
}

// build makes the generation for cfg from its entries (order holds them in
// configuration order, keys their content keys). A name maps to the first
// certificate in the configuration that claims it, which is the certstore
// tie-break rule.
func build(cfg *certstore.Config, entries map[pairKey]*entry, keys []pairKey, order []*entry, defaults map[string]*entry, generated *entry) *generation {
	g := &generation{configured: true, entries: entries, keys: keys, defaults: defaults, generated: generated}
	names := cfg.StoreNames()
	g.stores = make(map[string]*storeIndex, len(names))
	builders := make(map[string]*storeBuild, len(names))
	for _, name := range names {
		st := &storeIndex{}
		if d := defaults[name]; d != nil {
			st.def = &d.cert
		} else if generated != nil {
			st.def = &generated.cert
		}
		g.stores[name] = st
		builders[name] = &storeBuild{st: st}
	}
	g.def = g.stores[certstore.DefaultStore]

	// Distinct store lists, resolved to their builders once.
	resolved := [][]*storeBuild{{builders[certstore.DefaultStore]}}
	var setIndex map[string]uint32
	var buf []byte
	for i := range cfg.Certificates {
		list := cfg.Certificates[i].Stores
		if len(list) == 0 {
			continue
		}
		if g.setOf == nil {
			g.setOf = make([]uint32, len(order))
			setIndex = make(map[string]uint32)
		}
		buf = buf[:0]
		for _, name := range list {
			buf = appendName(buf, kindExact, name)
		}
		id, ok := setIndex[string(buf)]
		if !ok {
			id = uint32(len(g.sets) + 1)
			setIndex[string(buf)] = id
			g.sets = append(g.sets, slices.Clone(list))
			var bs []*storeBuild
			for _, name := range list {
				if b := builders[name]; !slices.Contains(bs, b) {
					bs = append(bs, b)
				}
			}
			resolved = append(resolved, bs)
		}
		g.setOf[i] = id
	}
	setOf := func(i int) []*storeBuild {
		if g.setOf == nil {
			return resolved[0]
		}
		return resolved[g.setOf[i]]
	}

	for i, e := range order {
		for _, b := range setOf(i) {
			b.nExact += int(e.nExact)
			b.nWild += int(e.nWild)
			b.nIP += int(e.nIP)
		}
	}
	for _, b := range builders {
		if b.nExact > 0 {
			b.st.exact = make(map[string]*tls.Certificate, b.nExact)
		}
		if b.nWild > 0 {
			b.st.wild = make(map[string]*tls.Certificate, b.nWild)
		}
		if b.nIP > 0 {
			b.st.ip = make(map[netip.Addr]*tls.Certificate, b.nIP)
		}
	}
	// Fill in reverse configuration order, overwriting: the last writer of
	// a name is the first certificate in the configuration that has it,
	// with one map operation per name.
	for i := len(order) - 1; i >= 0; i-- {
		e := order[i]
		c := &e.cert
		for _, b := range setOf(i) {
			st := b.st
			for p := 0; p < len(e.names); {
				kind, name, next := nextName(e.names, p)
				p = next
				switch kind {
				case kindExact:
					st.exact[name] = c
				case kindWild:
					st.wild[name] = c
				case kindIP:
					if addr, err := netip.ParseAddr(name); err == nil {
						st.ip[addr] = c
					}
				}
			}
		}
	}
	return g
}
