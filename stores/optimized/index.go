package optimized

import (
	"hash/maphash"
	"maps"
	"math/bits"
	"net/netip"
)

// table is an immutable hash index from a name (K) to the entry that wins
// it in one store, shared between generations by structure.
//
// It is a two-level hash trie with fat leaves: the top bits of a seeded
// hash of the key pick one of 1<<bits shards, and each shard is a small Go
// map. A published table is never modified; the next generation's table is
// made by with, which copies the shard directory (8 bytes per shard) and
// only the shards its changes touch, so an update costs O(shards) plus
// O(shard size) per changed name instead of O(names). Shards hold about
// shardTarget keys, so a copied shard is a few kilobytes whatever the size
// of the configuration, and the directory is kept at about one pointer per
// shardTarget keys by rebuilding the table (amortised: only when the
// number of keys has grown fourfold since the last build).
type table[K comparable] struct {
	shards []*shard[K] // nil entries are empty shards
	shift  uint8       // 64 - log2(len(shards)); hash>>shift picks the shard
	n      int         // number of keys
	// built is n when the table was last built from scratch (at least
	// shardTarget); with rebuilds once n outgrows it fourfold.
	built int
}

// shard is one leaf of a table. m maps each key to its winner. contested
// holds, for keys that more than one configuration position claims in the
// store, every claiming entry (one element per position, in no particular
// order), so that removing a claimant can tell who is left. It is nil in
// the common case of no shared names. Shards are immutable once their
// table is published.
type shard[K comparable] struct {
	m         map[K]*entry
	contested map[K][]*entry
}

// shardTarget is the number of keys a shard holds on average after a build.
const shardTarget = 32

// bitsFor returns the number of shard bits for n keys.
func bitsFor(n int) uint8 {
	if n <= shardTarget {
		return 0
	}
	return uint8(bits.Len(uint(n-1) / shardTarget))
}

// shardOf returns the shard that holds the keys of hash h, or nil when
// there is none. Lookups index its map themselves, so that a name in a
// byte buffer is converted in the index expression, which does not
// allocate.
func (t *table[K]) shardOf(h uint64) *shard[K] {
	if t.n == 0 {
		return nil
	}
	return t.shards[h>>t.shift]
}

// get returns the winner of k, whose hash is h, or nil.
func (t *table[K]) get(h uint64, k K) *entry {
	if sh := t.shardOf(h); sh != nil {
		return sh.m[k]
	}
	return nil
}

// claimants returns the entries that claim k (hash h): its contested list,
// or its single winner, or nothing.
func (t *table[K]) claimants(h uint64, k K) []*entry {
	if t.n == 0 {
		return nil
	}
	sh := t.shards[h>>t.shift]
	if sh == nil {
		return nil
	}
	if c := sh.contested[k]; c != nil {
		return c
	}
	if e := sh.m[k]; e != nil {
		return []*entry{e}
	}
	return nil
}

// Empty tables, shared by every store index without names of a kind.
var (
	noNames = &table[string]{}
	noAddrs = &table[netip.Addr]{}
)

// tableBuilder fills a table from scratch, in configuration order.
type tableBuilder[K comparable] struct {
	t    *table[K]
	size int // expected keys per shard, for map hints
}

// newTableBuilder starts a table for about n keys.
func newTableBuilder[K comparable](n int) *tableBuilder[K] {
	b := bitsFor(n)
	t := &table[K]{shards: make([]*shard[K], 1<<b), shift: 64 - b, built: max(n, shardTarget)}
	return &tableBuilder[K]{t: t, size: n>>b + n>>(b+2) + 1}
}

// add records that e claims k (hash h) at the next position in
// configuration order: the first claimant wins.
func (b *tableBuilder[K]) add(h uint64, k K, e *entry) {
	t := b.t
	i := h >> t.shift
	sh := t.shards[i]
	if sh == nil {
		sh = &shard[K]{m: make(map[K]*entry, b.size)}
		t.shards[i] = sh
	}
	w, ok := sh.m[k]
	if !ok {
		sh.m[k] = e
		t.n++
		return
	}
	if sh.contested == nil {
		sh.contested = make(map[K][]*entry)
	}
	if c := sh.contested[k]; c != nil {
		sh.contested[k] = append(c, e)
	} else {
		sh.contested[k] = []*entry{w, e}
	}
}

// done returns the built table, or empty when it has no keys.
func (b *tableBuilder[K]) done(empty *table[K]) *table[K] {
	if b.t.n == 0 {
		return empty
	}
	return b.t
}

// change is the new state of one key of a table: its claimants after an
// update (empty: the key is gone) and the winner among them.
type change[K comparable] struct {
	h         uint64
	k         K
	winner    *entry
	claimants []*entry // len >= 2 when contested
}

// with returns a new table that is t with changes applied; t is not
// modified. Only the shards changes touch are copied.
func (t *table[K]) with(changes []change[K]) *table[K] {
	nt := &table[K]{shards: t.shards, shift: t.shift, n: t.n, built: t.built}
	if len(nt.shards) == 0 {
		nt.shards = []*shard[K]{nil}
		nt.shift = 64
		nt.built = shardTarget
	}
	nt.shards = append([]*shard[K](nil), nt.shards...)
	var copied []uint64                            // shards copied so far
	done := make([]uint64, (len(nt.shards)+63)/64) // bitmap of copied
	for i := range changes {
		c := &changes[i]
		si := c.h >> nt.shift
		sh := nt.shards[si]
		if done[si/64]&(1<<(si%64)) == 0 {
			done[si/64] |= 1 << (si % 64)
			copied = append(copied, si)
			ns := &shard[K]{}
			if sh != nil {
				ns.m = maps.Clone(sh.m)
				ns.contested = maps.Clone(sh.contested)
			}
			if ns.m == nil {
				ns.m = make(map[K]*entry)
			}
			sh = ns
			nt.shards[si] = sh
		}
		_, had := sh.m[c.k]
		switch {
		case c.winner == nil:
			if had {
				delete(sh.m, c.k)
				nt.n--
			}
		default:
			if !had {
				nt.n++
			}
			sh.m[c.k] = c.winner
		}
		if len(c.claimants) >= 2 {
			if sh.contested == nil {
				sh.contested = make(map[K][]*entry)
			}
			sh.contested[c.k] = c.claimants
		} else if sh.contested != nil {
			delete(sh.contested, c.k)
		}
	}
	for _, si := range copied {
		if sh := nt.shards[si]; len(sh.m) == 0 {
			nt.shards[si] = nil
		} else if len(sh.contested) == 0 {
			sh.contested = nil
		}
	}
	if nt.n == 0 {
		return &table[K]{}
	}
	if nt.n > 4*nt.built {
		return nt.rebuilt()
	}
	return nt
}

// rebuilt returns t with a directory sized for its number of keys. Every
// key keeps its winner and claimants; only the layout changes.
func (t *table[K]) rebuilt() *table[K] {
	b := bitsFor(t.n)
	nt := &table[K]{shards: make([]*shard[K], 1<<b), shift: 64 - b, n: t.n, built: max(t.n, shardTarget)}
	size := t.n>>b + t.n>>(b+2) + 1
	for _, sh := range t.shards {
		if sh == nil {
			continue
		}
		for k, e := range sh.m {
			i := hashKey(k) >> nt.shift
			ns := nt.shards[i]
			if ns == nil {
				ns = &shard[K]{m: make(map[K]*entry, size)}
				nt.shards[i] = ns
			}
			ns.m[k] = e
			if c := sh.contested[k]; c != nil {
				if ns.contested == nil {
					ns.contested = make(map[K][]*entry)
				}
				ns.contested[k] = c
			}
		}
	}
	return nt
}

// indexSeed seeds the hashes of every table in the process. A fixed
// per-process seed (random at start-up) lets tables be rebuilt without
// carrying their seed and keeps the table struct small; configuration
// contents are trusted input and cannot observe it.
var indexSeed = maphash.MakeSeed()

// hashKey hashes a table key: a name (string) or an address.
func hashKey[K comparable](k K) uint64 {
	switch k := any(k).(type) {
	case string:
		return maphash.String(indexSeed, k)
	case netip.Addr:
		return hashAddr(k)
	}
	panic("optimized: unexpected table key type")
}

// hashName hashes a lowercased name for the name tables: a string, or
// the stack buffer the lookup path lowercases into. Both give the same
// hash for the same bytes.
func hashName[T string | []byte](name T) uint64 {
	switch n := any(name).(type) {
	case string:
		return maphash.String(indexSeed, n)
	case []byte:
		return maphash.Bytes(indexSeed, n)
	}
	panic("unreachable")
}

// hashAddr hashes an IP address by its 16 bytes (zones are compared by the
// shard map, never hashed: no indexed address has one).
func hashAddr(a netip.Addr) uint64 {
	b := a.As16()
	return maphash.Bytes(indexSeed, b[:])
}
