package naive

import (
	"crypto/tls"
	"sync"
	"time"
)

// cacheTTL is go-cache's default expiration in Traefik's stores.
const cacheTTL = time.Hour

// lookupCache models a store's go-cache, without the janitor goroutine:
// expired items are ignored and dropped with their generation.
type lookupCache struct {
	mu    sync.RWMutex
	ttl   time.Duration
	items map[string]cacheItem
}

// cacheItem is go-cache's Item (expiration in Unix nanoseconds).
type cacheItem struct {
	object     any
	expiration int64
}

func newLookupCache(ttl time.Duration) *lookupCache {
	return &lookupCache{ttl: ttl, items: make(map[string]cacheItem)}
}

// get returns the certificate cached for key, if any and not expired.
func (c *lookupCache) get(key string) (*tls.Certificate, bool) {
	c.mu.RLock()
	it, ok := c.items[key]
	if !ok {
		c.mu.RUnlock()
		return nil, false
	}
	if it.expiration > 0 && time.Now().UnixNano() > it.expiration {
		c.mu.RUnlock()
		return nil, false
	}
	c.mu.RUnlock()
	cert, ok := it.object.(*tls.Certificate)
	return cert, ok
}

// set caches cert for key with the cache's expiry (go-cache's SetDefault).
func (c *lookupCache) set(key string, cert *tls.Certificate) {
	var exp int64
	if c.ttl > 0 {
		exp = time.Now().Add(c.ttl).UnixNano()
	}
	c.mu.Lock()
	c.items[key] = cacheItem{object: cert, expiration: exp}
	c.mu.Unlock()
}
