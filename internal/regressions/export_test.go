package regressions

import (
	"crypto/tls"
	"fmt"
	"sync"

	"github.com/certbench/certbench/certstore"
)

// Parse returns the Kind named s.
func Parse(s string) (Kind, error) {
	for _, k := range append(Kinds, CacheWalk) {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("regressions: unknown variant %q (want none, allocs, bytes, slow, work, janitor or cachewalk)", s)
}

// CacheWalk, for the sensitivity tests only: lookups answered from a cache
// of answers (filled on a miss, emptied by Update) of which every lookup
// walks a sixteenth, as a cache that expires its entries on lookup, a few
// at a time, does: a lookup costs in proportion to the names looked up
// since the last refresh (docs/measurements.md: instructions/op and
// sec/op move together on it).
const CacheWalk Kind = "cachewalk"

// WrapAny is Wrap, and CacheWalk.
func WrapAny(k Kind, newStore certstore.Factory) certstore.Factory {
	if k == CacheWalk {
		return func() certstore.Store { return &cacheWalk{Store: newStore()} }
	}
	return Wrap(k, newStore)
}

type cacheWalk struct {
	certstore.Store
	mu    sync.Mutex
	cache map[string]map[string]*tls.Certificate // by store, then server name
	walks int                                    // what the walks found, so that they are not optimized away
}

func (s *cacheWalk) Update(cfg *certstore.Config) error {
	s.mu.Lock()
	s.cache = nil
	s.mu.Unlock()
	return s.Store.Update(cfg)
}

func (s *cacheWalk) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	var sni string
	if hello != nil {
		sni = hello.ServerName
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	left := len(s.cache[store]) / 16
	for name, c := range s.cache[store] {
		if left--; left < 0 {
			break
		}
		if c == nil || len(name) > len(sni) {
			s.walks++
		}
	}
	if c, ok := s.cache[store][sni]; ok {
		return c, nil
	}
	c, err := s.Store.Certificate(store, hello)
	if err == nil {
		if s.cache == nil {
			s.cache = map[string]map[string]*tls.Certificate{}
		}
		if s.cache[store] == nil {
			s.cache[store] = map[string]*tls.Certificate{}
		}
		s.cache[store][sni] = c
	}
	return c, err
}
