package certgen

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Shape is what a certificate source looks like, without saying what is
// in it: counts and histograms, never a name, a key or a path. It is safe
// to put in results and to share.
type Shape struct {
	Count  int            // configured certificates, store defaults not included
	Keys   map[string]int // by key type ("p256", "rsa2048", ...)
	Chains map[string]int // by chain length (leaf included), bucketed as SANs
	SANs   map[string]int // by DNS and IP names: "0" to "4", "5-8", "9-16", ... "1025+"
	Stores int            // the default store included
	// Defaults counts the stores with a configured default.
	Defaults int
	// Fingerprint is 16 hex digits of the SHA-256 of the leaves' DER,
	// sorted and concatenated: equal for the same leaves in any order.
	Fingerprint string
}

// Shape describes the source.
func (s *Source) Shape() Shape {
	sh := Shape{
		Count:       len(s.Certs),
		Keys:        make(map[string]int),
		Chains:      make(map[string]int),
		SANs:        make(map[string]int),
		Defaults:    len(s.Defaults),
		Fingerprint: s.fingerprint,
	}
	for i := range s.Certs {
		f := &s.Certs[i].Facts
		sh.Keys[f.KeyType]++
		sh.Chains[bucket(f.ChainLen)]++
		sh.SANs[bucket(f.SANs)]++
	}
	cfg := s.Config()
	sh.Stores = len(cfg.StoreNames())
	return sh
}

// bucket puts n in a histogram bucket: exact up to 4, then powers of two.
func bucket(n int) string {
	if n <= 4 {
		return strconv.Itoa(n)
	}
	lo := 5
	for hi := 8; hi <= 1024; hi *= 2 {
		if n <= hi {
			return fmt.Sprintf("%d-%d", lo, hi)
		}
		lo = hi + 1
	}
	return "1025+"
}

// bucketLow is the smallest value of a bucket, for sorting.
func bucketLow(b string) int {
	b = strings.TrimSuffix(b, "+")
	if i := strings.IndexByte(b, '-'); i >= 0 {
		b = b[:i]
	}
	n, _ := strconv.Atoi(b)
	return n
}

// histogram renders counts as "k=v,k=v", keys sorted by name, or by
// number when numeric is set; "none" when empty.
func histogram(m map[string]int, numeric bool) string {
	if len(m) == 0 {
		return "none"
	}
	keys := slices.Collect(maps.Keys(m))
	if numeric {
		slices.SortFunc(keys, func(a, b string) int { return bucketLow(a) - bucketLow(b) })
	} else {
		slices.Sort(keys)
	}
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%d", k, m[k])
	}
	return b.String()
}

// KeyValues returns the shape as Go benchmark-format configuration keys
// and values, alternating, in a fixed order: certs-count, certs-keys,
// certs-chains, certs-sans, certs-stores, certs-defaults and
// certs-fingerprint. It fits results.NewWriter's extra arguments.
func (sh Shape) KeyValues() []string {
	return []string{
		"certs-count", strconv.Itoa(sh.Count),
		"certs-keys", histogram(sh.Keys, false),
		"certs-chains", histogram(sh.Chains, true),
		"certs-sans", histogram(sh.SANs, true),
		"certs-stores", strconv.Itoa(sh.Stores),
		"certs-defaults", strconv.Itoa(sh.Defaults),
		"certs-fingerprint", sh.Fingerprint,
	}
}

// String renders the shape as benchmark configuration lines
// ("certs-count: 3000"), one a line.
func (sh Shape) String() string {
	kv := sh.KeyValues()
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, "%s: %s\n", kv[i], kv[i+1])
	}
	return b.String()
}
