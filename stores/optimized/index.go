package optimized

import (
	"cmp"
	"hash/maphash"
	"maps"
	"math/bits"
	"net/netip"
	"slices"
)

// table is an immutable hash index from a name (K) to the entry that wins
// it in one store: a two-level hash trie whose top hash bits pick a shard,
// a small open-addressing table on the low bits (one hash per lookup).
// The next generation's table (with) copies the directory and only the
// shards its changes touch; it is laid out again when its keys have grown
// fourfold (amortised O(1) per key).
type table[K comparable] struct {
	shards []*shard[K] // nil entries are empty shards
	shift  uint8       // 64 - log2(len(shards)); hash>>shift picks the shard
	n      int         // number of keys
	// built is n when the table was last laid out (at least shardTarget).
	built int
}

// shard is one leaf of a table: linear probing, at most three quarters
// full, immutable once published. contested holds every claimant of the
// keys several positions claim, so that removing one tells who is left;
// lookups read slots only.
type shard[K comparable] struct {
	slots     []slot[K]
	n         int
	contested map[K][]*entry
}

// slot is one key of a shard and the entry that wins it (nil: empty).
type slot[K comparable] struct {
	k K
	e *entry
}

// shardTarget is the mean keys per shard after a build.
const shardTarget = 32

// bitsFor returns the number of shard bits for n keys.
func bitsFor(n int) uint8 {
	if n <= shardTarget {
		return 0
	}
	return uint8(bits.Len(uint(n-1) / shardTarget))
}

// newShard returns an empty shard with room for n keys.
func newShard[K comparable](n int) *shard[K] {
	size := 8
	for size*3 < n*4+4 {
		size *= 2
	}
	return &shard[K]{slots: make([]slot[K], size)}
}

// pos returns the slot of k (hash h), or the empty slot where it would go.
func (sh *shard[K]) pos(h uint64, k K) int {
	mask := uint64(len(sh.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if s := &sh.slots[i]; s.e == nil || s.k == k {
			return int(i)
		}
	}
}

// put sets k (hash h) to e in a shard under construction, growing it, and
// returns the entry k had.
func (sh *shard[K]) put(h uint64, k K, e *entry) *entry {
	i := sh.pos(h, k)
	if old := sh.slots[i].e; old != nil {
		sh.slots[i].e = e
		return old
	}
	if (sh.n+1)*4 > len(sh.slots)*3 {
		bigger := &shard[K]{slots: make([]slot[K], 2*len(sh.slots))}
		for _, s := range sh.slots {
			if s.e != nil {
				bigger.put(hashKey(s.k), s.k, s.e)
			}
		}
		sh.slots = bigger.slots
		i = sh.pos(h, k)
	}
	sh.slots[i] = slot[K]{k, e}
	sh.n++
	return nil
}

// shardOf returns the shard of hash h, or nil.
func (t *table[K]) shardOf(h uint64) *shard[K] {
	if t.n == 0 {
		return nil
	}
	return t.shards[h>>t.shift]
}

// get returns the winner of k, whose hash is h, or nil.
func (t *table[K]) get(h uint64, k K) *entry {
	if sh := t.shardOf(h); sh != nil {
		return sh.slots[sh.pos(h, k)].e
	}
	return nil
}

// lookupName returns the winner of a lowercased name in t, or nil; name may
// be the lookup's stack buffer (string(name) in a comparison does not allocate).
func lookupName[T string | []byte](t *table[string], name T) *entry {
	if t.n == 0 {
		return nil
	}
	h := hashName(name)
	sh := t.shards[h>>t.shift]
	if sh == nil {
		return nil
	}
	mask := uint64(len(sh.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &sh.slots[i]
		if s.e == nil {
			return nil
		}
		if s.k == string(name) {
			return s.e
		}
	}
}

// claimants returns the entries that claim k (hash h).
func (t *table[K]) claimants(h uint64, k K) []*entry {
	sh := t.shardOf(h)
	if sh == nil {
		return nil
	}
	if c := sh.contested[k]; c != nil {
		return c
	}
	if e := sh.slots[sh.pos(h, k)].e; e != nil {
		return []*entry{e}
	}
	return nil
}

// Empty tables, shared by every store index without names of a kind.
var (
	noNames = &table[string]{}
	noAddrs = &table[netip.Addr]{}
)

// newTable returns an empty table laid out for about n keys, to fill with
// add in configuration order; shards double as they fill, ending between
// three eighths and three quarters full.
func newTable[K comparable](n int) *table[K] {
	b := bitsFor(n)
	return &table[K]{shards: make([]*shard[K], 1<<b), shift: 64 - b, built: max(n, shardTarget)}
}

// shardFor returns the shard of hash h of a table under construction,
// making it if it is empty.
func (t *table[K]) shardFor(h uint64) *shard[K] {
	i := h >> t.shift
	if t.shards[i] == nil {
		t.shards[i] = newShard[K](0)
	}
	return t.shards[i]
}

// add records that e claims k (hash h) next in configuration order (the
// first claimant wins), in a table under construction.
func (t *table[K]) add(h uint64, k K, e *entry) {
	sh := t.shardFor(h)
	w := sh.slots[sh.pos(h, k)].e
	if w == nil {
		sh.put(h, k, e)
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

// orEmpty returns t, or empty when t has no keys.
func (t *table[K]) orEmpty(empty *table[K]) *table[K] {
	if t.n == 0 {
		return empty
	}
	return t
}

// change is the new state of one key: its claimants (none: gone) and winner.
type change[K comparable] struct {
	h         uint64
	k         K
	winner    *entry
	claimants []*entry // len >= 2 when contested
}

// with returns t with changes applied, copying only the shards they touch.
func (t *table[K]) with(changes []change[K]) *table[K] {
	nt := &table[K]{shards: t.shards, shift: t.shift, n: t.n, built: t.built}
	if len(nt.shards) == 0 {
		nt.shards = []*shard[K]{nil}
		nt.shift = 64
		nt.built = shardTarget
	}
	nt.shards = append([]*shard[K](nil), nt.shards...)
	slices.SortFunc(changes, func(a, b change[K]) int { return cmp.Compare(a.h>>nt.shift, b.h>>nt.shift) })
	for lo := 0; lo < len(changes); {
		si := changes[lo].h >> nt.shift
		hi := lo + 1
		for hi < len(changes) && changes[hi].h>>nt.shift == si {
			hi++
		}
		old := nt.shards[si]
		live := 0
		if old != nil {
			live = old.n
			nt.n -= old.n
		}
		ns := newShard[K](live + hi - lo)
		if old != nil {
			ns.contested = maps.Clone(old.contested)
			for _, s := range old.slots {
				if s.e != nil {
					ns.put(hashKey(s.k), s.k, s.e)
				}
			}
		}
		for _, c := range changes[lo:hi] {
			if c.winner != nil {
				ns.put(c.h, c.k, c.winner)
			} else if i := ns.pos(c.h, c.k); ns.slots[i].e != nil {
				ns.remove(i)
			}
			if len(c.claimants) >= 2 {
				if ns.contested == nil {
					ns.contested = make(map[K][]*entry)
				}
				ns.contested[c.k] = c.claimants
			} else if ns.contested != nil {
				delete(ns.contested, c.k)
			}
		}
		if len(ns.contested) == 0 {
			ns.contested = nil
		}
		nt.n += ns.n
		if ns.n == 0 {
			ns = nil
		}
		nt.shards[si] = ns
		lo = hi
	}
	if nt.n == 0 {
		return &table[K]{}
	}
	if nt.n > 4*nt.built {
		return nt.rebuilt()
	}
	return nt
}

// remove empties slot i of a shard under construction, moving later keys
// of its probe run back so that each stays reachable from its home slot.
func (sh *shard[K]) remove(i int) {
	mask := len(sh.slots) - 1
	sh.slots[i] = slot[K]{}
	sh.n--
	for j := (i + 1) & mask; sh.slots[j].e != nil; j = (j + 1) & mask {
		s := sh.slots[j]
		sh.slots[j] = slot[K]{}
		sh.n--
		sh.put(hashKey(s.k), s.k, s.e)
	}
}

// rebuilt returns t laid out again for its number of keys.
func (t *table[K]) rebuilt() *table[K] {
	nt := newTable[K](t.n)
	nt.n = t.n
	for _, sh := range t.shards {
		if sh == nil {
			continue
		}
		for _, s := range sh.slots {
			if s.e == nil {
				continue
			}
			h := hashKey(s.k)
			ns := nt.shardFor(h)
			ns.put(h, s.k, s.e)
			if c := sh.contested[s.k]; c != nil {
				if ns.contested == nil {
					ns.contested = make(map[K][]*entry)
				}
				ns.contested[s.k] = c
			}
		}
	}
	return nt
}

// indexSeed seeds every table's hashes, so that tables carry no seed.
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

// hashName hashes a lowercased name, a string or the lookup's stack buffer
// (the same hash for the same bytes).
func hashName[T string | []byte](name T) uint64 {
	switch n := any(name).(type) {
	case string:
		return maphash.String(indexSeed, n)
	case []byte:
		return maphash.Bytes(indexSeed, n)
	}
	panic("unreachable")
}

// hashAddr hashes an IP address by its 16 bytes (no indexed address has a zone).
func hashAddr(a netip.Addr) uint64 {
	b := a.As16()
	return maphash.Bytes(indexSeed, b[:])
}
