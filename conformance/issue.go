package conformance

// Certificate issuance for the differential pass.

import (
	"fmt"
	"hash/fnv"
	"net"
	"net/netip"
	"strings"
	"sync"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
)

// diffIssuerSeed makes the differential pass's CA. It is fixed (not the
// run's seed) so that every run in a process shares one leaf cache.
const diffIssuerSeed = 0xd1ff_c0de

// issued is one certificate made for a CaseCert.
type issued struct {
	pair  certstore.KeyPair
	leaf  []byte   // DER of the leaf
	names []string // certstore.Names of the leaf
}

// leafCache issues certificates for CaseCerts and keeps them by names and
// variant, so that a configuration that reappears costs no issuance.
type leafCache struct {
	mu      sync.Mutex
	issuer  *certgen.Issuer
	leaves  map[string]*issued
	serials map[uint64]string
}

// maxCachedLeaves bounds the cache; it is emptied when full.
const maxCachedLeaves = 20000

var diffLeaves = sync.OnceValue(func() *leafCache {
	return &leafCache{issuer: certgen.NewIssuer(diffIssuerSeed), leaves: map[string]*issued{}, serials: map[uint64]string{}}
})

// key is the cache key of c: its names and variant, not its stores.
func (c *CaseCert) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q|", c.CommonName)
	for _, n := range c.DNSNames {
		fmt.Fprintf(&b, "%q,", n)
	}
	b.WriteByte('|')
	for _, n := range c.IPs {
		fmt.Fprintf(&b, "%q,", n)
	}
	fmt.Fprintf(&b, "|%d", c.Variant)
	return b.String()
}

// get returns the certificate for c, issuing it on first use with a serial
// hashed from the key, so it does not depend on the order of issuance.
func (lc *leafCache) get(c *CaseCert) (*issued, error) {
	k := c.key()
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if is, ok := lc.leaves[k]; ok {
		return is, nil
	}
	if len(lc.leaves) >= maxCachedLeaves {
		lc.leaves = map[string]*issued{}
		lc.serials = map[uint64]string{}
	}
	h := fnv.New64a()
	h.Write([]byte(k))
	serial := h.Sum64() >> 2
	for {
		if other, taken := lc.serials[serial]; !taken || other == k {
			break
		}
		serial++
	}
	l := certgen.Leaf{Serial: serial, CommonName: c.CommonName, DNSNames: c.DNSNames}
	for _, s := range c.IPs {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("IP %q: %v", s, err)
		}
		l.IPAddresses = append(l.IPAddresses, net.IP(a.WithZone("").AsSlice()))
	}
	pair, err := lc.issuer.Issue(l)
	if err != nil {
		return nil, err
	}
	c0, err := newCert("differential", pair)
	if err != nil {
		return nil, err
	}
	is := &issued{pair: pair, leaf: c0.leaf, names: c0.names}
	lc.leaves[k] = is
	lc.serials[serial] = k
	return is, nil
}
