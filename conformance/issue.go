package conformance

// Certificate issuance for the differential pass.

import (
	"fmt"
	"hash/fnv"
	"net"
	"net/netip"
	"sync"

	"github.com/certbench/certbench/certgen"
)

// diffIssuerSeed makes the differential pass's CA. It is fixed (not the
// run's seed) so that every run in a process shares one leaf cache.
const diffIssuerSeed = 0xd1ff_c0de

// leafCache issues certificates for CaseCerts and keeps them by names and
// variant, so that a configuration that reappears costs no issuance.
type leafCache struct {
	mu      sync.Mutex
	issuer  *certgen.Issuer
	leaves  map[string]*cert
	serials map[uint64]string
}

// maxCachedLeaves bounds the cache; it is emptied when full.
const maxCachedLeaves = 20000

var diffLeaves = sync.OnceValue(func() *leafCache {
	return &leafCache{issuer: certgen.NewIssuer(diffIssuerSeed), leaves: map[string]*cert{}, serials: map[uint64]string{}}
})

// key is the cache key of c: its names and variant, not its stores.
func (c *CaseCert) key() string {
	return fmt.Sprintf("%q|%q|%q|%d", c.CommonName, c.DNSNames, c.IPs, c.Variant)
}

// get returns the certificate for c, issuing it on first use with a serial
// hashed from the key, so it does not depend on the order of issuance.
func (lc *leafCache) get(c *CaseCert) (*cert, error) {
	k := c.key()
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if is, ok := lc.leaves[k]; ok {
		return is, nil
	}
	if len(lc.leaves) >= maxCachedLeaves {
		lc.leaves = map[string]*cert{}
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
	is, err := newCert("differential", pair)
	if err != nil {
		return nil, err
	}
	lc.leaves[k] = is
	lc.serials[serial] = k
	return is, nil
}
