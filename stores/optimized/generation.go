package optimized

import (
	"crypto/tls"
	"net/netip"
	"strings"

	"github.com/certbench/certbench/certstore"
)

// generation is one published configuration, never modified after.
type generation struct {
	// configured is false for the generation a new store starts with.
	configured bool
	// def is stores[certstore.DefaultStore], checked without hashing.
	def    *storeIndex
	stores map[string]*storeIndex
}

// storeIndex answers lookups for one store of a generation. Its tables are
// never nil (noNames and noAddrs stand for empty ones) and are shared with
// other generations where unchanged.
type storeIndex struct {
	exact *table[string]     // DNS names and common names
	wild  *table[string]     // "*.example.com" under "example.com"
	ip    *table[netip.Addr] // canonical IP addresses
	def   *tls.Certificate   // configured or generated default
}

// maxStackName is the longest SNI lowercased on the stack (DNS names have
// at most 253 bytes).
const maxStackName = 256

// Certificate returns the certificate for hello in the named store. It
// takes no lock and allocates only for an SNI strings.ToLower must change
// (non-ASCII, or long with a capital) or a colon that is not IPv6.
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

// find returns the certificate matching sni, or nil for the default.
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
		// As certstore.NormalizeServerName; ToLower returns sni itself,
		// without allocating, when nothing changes.
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
// that the stack-buffer path compares string(b) without allocating.
func findLower[T string | []byte](st *storeIndex, name T, sni string) *tls.Certificate {
	if e := lookupName(st.exact, name); e != nil {
		return &e.cert
	}
	if st.ip.n == 0 && st.wild.n == 0 {
		return nil
	}
	// An IP address SNI matches IP names only (exact keys never parse as
	// an address), and never a wildcard. Like
	// certstore.NormalizeServerName, parse the SNI as it came.
	if couldBeIP(sni) {
		if addr, err := netip.ParseAddr(sni); err == nil {
			if e := st.ip.get(hashAddr(addr.Unmap()), addr.Unmap()); e != nil {
				return &e.cert
			}
			return nil
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
	parent := name[i+1:]
	if e := lookupName(st.wild, parent); e != nil {
		return &e.cert
	}
	return nil
}

// couldBeIP reports whether netip.ParseAddr may accept s, so that lookups
// of host names never pay for ParseAddr's allocated error. It is exact for
// IPv4 and true for anything with a colon.
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
