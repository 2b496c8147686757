package optimized

import (
	"crypto/tls"
	"net/netip"
	"slices"
	"time"

	"github.com/certbench/certbench/certstore"
)

// hunk is one change: old positions [oldLo, oldHi) become [newLo, newHi).
type hunk struct{ oldLo, oldHi, newLo, newHi int }

// rebuildLimit is the number of changed positions above which an Update
// rebuilds every table instead of copying the shards touched (past about
// an eighth, copies cost as much). A variable for tests.
var rebuildLimit = func(n int) int { return n / 8 }

// Update validates cfg and publishes it as the new generation. On error
// nothing changes and the error is a *certstore.CertificateError (except
// for a nil cfg): store names first, then the lowest failing index, then
// configured defaults in store name order.
func (s *Store) Update(cfg *certstore.Config) error {
	if cfg == nil {
		return errNilConfig
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := certstore.CheckStores(cfg); err != nil {
		return err
	}
	certs := cfg.Certificates
	now := time.Now()
	// The slices below stay in this frame, not in a struct shared with
	// helpers, so that the compiler keeps small backing arrays on the stack.
	var keys []pairKey // every new key, when hk alone is not enough
	var hunks []hunk
	var hk []pairKey // keys of the hunks' new positions, in hunk order
	if s.configured && len(certs) == len(s.keys) && len(certs) < parallelHashMin {
		// Compared as it is hashed, keeping only the keys that changed,
		// so that a refresh holds no per-certificate buffer.
		for i := range certs {
			k := s.keyOf(&certs[i].KeyPair)
			if k != s.keys[i] || !slices.Equal(s.listAt(i), certs[i].Stores) {
				hunks = append(hunks, hunk{i, i + 1, i, i + 1})
				hk = append(hk, k)
			}
		}
	} else {
		keys = s.contentKeys(certs)
		hunks = s.diff(certs, keys)
		for _, h := range hunks {
			hk = append(hk, keys[h.newLo:h.newHi]...)
		}
	}
	defStores := configuredDefaults(cfg)
	defKeys := make([]pairKey, len(defStores))
	for j, name := range defStores {
		defKeys[j] = s.keyOf(cfg.Stores[name].DefaultCertificate)
	}
	if s.configured && len(hunks) == 0 && s.sameStores(cfg, defStores, defKeys, now) {
		return nil // the published generation already is cfg, byte for byte
	}

	jobs := s.queueJobs(cfg, hunks, hk, defStores, defKeys)
	if j := s.parseJobs(jobs); j >= 0 {
		jb := &jobs[j]
		return &certstore.CertificateError{Index: jb.index, Store: jb.store, Name: jb.res.name, Err: jb.err}
	}
	usesGen := len(defStores) < len(cfg.StoreNames())
	generated, err := s.generatedDefault(usesGen, now)
	if err != nil {
		return err
	}

	// Commit: from here on nothing fails.
	s.commitEntries(jobs)
	changed := 0
	for _, h := range hunks {
		changed += h.oldHi - h.oldLo + h.newHi - h.newLo
	}
	full := !s.configured || changed > rebuildLimit(len(certs)) || len(s.sets) > 64+2*len(certs)
	// What leaves and what arrives, before the bookkeeping moves on.
	var gone, come []placed
	var dropped []pairKey // keys of entries that may have left
	for _, h := range hunks {
		for i := h.oldLo; i < h.oldHi; i++ {
			e := s.order[i]
			if !full {
				gone = append(gone, placed{e, s.setAt(i)})
			}
			if e.refs--; e.refs == 0 {
				dropped = append(dropped, s.keys[i])
			}
		}
	}
	newOrder := make([]*entry, 0, changed)
	newSets := make([]uint32, 0, changed)
	j := 0
	for _, h := range hunks {
		for i := h.newLo; i < h.newHi; i, j = i+1, j+1 {
			e := s.entries[hk[j]]
			e.refs++
			id := s.intern(certs[i].Stores)
			newOrder = append(newOrder, e)
			newSets = append(newSets, id)
			if !full {
				come = append(come, placed{e, id})
			}
		}
	}
	for name, e := range s.defaults {
		if e.refs--; e.refs == 0 {
			dropped = append(dropped, s.defaultKeys[name])
		}
	}
	s.setDefaults(defStores, defKeys)
	for _, k := range dropped {
		// A pair dropped at one place and added at another is kept.
		if e := s.entries[k]; e != nil && e.refs == 0 {
			delete(s.entries, k)
			s.releaseChain(e)
		}
	}
	s.apply(hunks, len(certs), keys, hk, newOrder, newSets)
	if full && len(s.sets) > 64+2*len(certs) {
		s.reintern(certs)
	}
	s.usesGen = usesGen
	s.declared = make(map[string]bool, len(cfg.Stores)+1)
	for _, name := range cfg.StoreNames() {
		s.declared[name] = true
	}
	s.publish(full, gone, come, generated)
	return nil
}

// queueJobs returns a parse job per distinct pair the published
// configuration lacks, of the hunks' new positions (keys hk) and defaults.
func (s *Store) queueJobs(cfg *certstore.Config, hunks []hunk, hk []pairKey, defStores []string, defKeys []pairKey) []job {
	certs := cfg.Certificates
	jobs := make([]job, 0, len(hk)+len(defStores))
	var queued map[pairKey]bool
	want := func(k pairKey) bool {
		if s.entries[k] != nil || queued[k] {
			return false
		}
		if queued == nil {
			queued = make(map[pairKey]bool, len(hk)+len(defStores))
		}
		queued[k] = true
		return true
	}
	j := 0
	for _, h := range hunks {
		for i := h.newLo; i < h.newHi; i, j = i+1, j+1 {
			if want(hk[j]) {
				jobs = append(jobs, job{pair: &certs[i].KeyPair, key: hk[j], index: i})
			}
		}
	}
	for j, name := range defStores {
		if want(defKeys[j]) {
			jobs = append(jobs, job{pair: cfg.Stores[name].DefaultCertificate, key: defKeys[j], index: -1, store: name})
		}
	}
	return jobs
}

// generatedDefault returns the shared generated default (nil when no store
// uses it); a failure to renew it keeps the one that expires.
func (s *Store) generatedDefault(used bool, now time.Time) (*entry, error) {
	if !used {
		return nil, nil
	}
	if s.generated == nil || !now.Before(s.genExpiry) {
		e, expiry, err := generateDefault()
		if err != nil && s.generated == nil {
			return nil, err
		}
		if err == nil {
			s.generated, s.genExpiry = e, expiry
		}
	}
	return s.generated, nil
}

// commitEntries adds the parsed pairs to the entries.
func (s *Store) commitEntries(jobs []job) {
	if len(s.entries) == 0 && len(jobs) > 64 {
		s.entries = make(map[pairKey]*entry, len(jobs))
	}
	for j := range jobs {
		s.acquireChain(&jobs[j].res)
		s.entries[jobs[j].key] = jobs[j].res.e
	}
}

// setDefaults makes the entries of defKeys the configured defaults of
// defStores, counting the references.
func (s *Store) setDefaults(defStores []string, defKeys []pairKey) {
	s.defaults, s.defaultKeys = nil, nil
	if len(defStores) > 0 {
		s.defaults = make(map[string]*entry, len(defStores))
		s.defaultKeys = make(map[string]pairKey, len(defStores))
	}
	for j, name := range defStores {
		e := s.entries[defKeys[j]]
		e.refs++
		s.defaults[name], s.defaultKeys[name] = e, defKeys[j]
	}
}

// publish builds the new generation's tables (in full, or from the
// published ones) and defaults, and publishes it with one atomic store.
func (s *Store) publish(full bool, gone, come []placed, generated *entry) {
	old := s.cur.Load()
	g := &generation{configured: true, stores: make(map[string]*storeIndex, len(s.declared))}
	if full {
		s.buildAll(g)
	} else {
		s.updateTables(g, old, gone, come)
	}
	for name, st := range g.stores {
		var def *tls.Certificate
		if d := s.defaults[name]; d != nil {
			def = &d.cert
		} else if generated != nil {
			def = &generated.cert
		}
		if st.def != def {
			if o := old.stores[name]; o == st {
				c := *st
				st = &c
				g.stores[name] = st
			}
			st.def = def
		}
	}
	g.def = g.stores[certstore.DefaultStore]
	s.configured = true
	s.cur.Store(g)
}

// placed is an entry at a position of a configuration, with the set id of
// the position's store list.
type placed struct {
	e   *entry
	set uint32
}

// diff returns how certs (content keys keys) differ from the published
// configuration: with as many certificates, every position whose key or
// Stores changed; otherwise one hunk between the common prefix and suffix.
func (s *Store) diff(certs []certstore.Certificate, keys []pairKey) []hunk {
	same := func(oldI, newI int) bool {
		return s.keys[oldI] == keys[newI] && slices.Equal(s.listAt(oldI), certs[newI].Stores)
	}
	n, m := len(s.keys), len(keys)
	if n == m {
		var hs []hunk
		for i := range keys {
			if !same(i, i) {
				hs = append(hs, hunk{i, i + 1, i, i + 1})
			}
		}
		return hs
	}
	p := 0
	for p < n && p < m && same(p, p) {
		p++
	}
	q := 0
	for q < n-p && q < m-p && same(n-1-q, m-1-q) {
		q++
	}
	return []hunk{{p, n - q, p, m - q}}
}

// apply moves the bookkeeping (keys, order, setOf) to the new
// configuration of n certificates: hunk by hunk, hk, newOrder and newSets
// hold the keys, entries and set ids of the new positions in hunk order;
// keys holds every new key when the length changes.
func (s *Store) apply(hunks []hunk, n int, keys, hk []pairKey, newOrder []*entry, newSets []uint32) {
	if n == len(s.keys) {
		j := 0
		for _, h := range hunks {
			for i := h.newLo; i < h.newHi; i, j = i+1, j+1 {
				s.keys[i] = hk[j]
				s.order[i] = newOrder[j]
				s.setAt0(i, newSets[j], n)
			}
		}
		return
	}
	h := hunks[0]
	s.order = slices.Replace(s.order, h.oldLo, h.oldHi, newOrder...)
	if s.setOf != nil || slices.ContainsFunc(newSets, func(id uint32) bool { return id != 0 }) {
		if s.setOf == nil {
			s.setOf = make([]uint32, len(s.keys))
		}
		s.setOf = slices.Replace(s.setOf, h.oldLo, h.oldHi, newSets...)
	}
	if n >= parallelHashMin {
		// Swap in the scratch buffer; the second one is made now, so that
		// an unchanged refresh allocates nothing from the first on.
		spare := s.keys[:0]
		if cap(spare) < n {
			spare = make([]pairKey, 0, n)
		}
		s.keys, s.keyScratch = keys, spare
	} else {
		s.keys = keys // a buffer of its own (see contentKeys)
	}
}

// setAt0 sets the set id of position i of a configuration of n.
func (s *Store) setAt0(i int, id uint32, n int) {
	if s.setOf == nil {
		if id == 0 {
			return
		}
		s.setOf = make([]uint32, n)
	}
	s.setOf[i] = id
}

// setAt returns the set id of position i of the published configuration.
func (s *Store) setAt(i int) uint32 {
	if s.setOf == nil {
		return 0
	}
	return s.setOf[i]
}

// listAt returns the Stores list of position i of the published
// configuration.
func (s *Store) listAt(i int) []string {
	if id := s.setAt(i); id != 0 {
		return s.sets[id-1]
	}
	return nil
}

// intern returns the set id of a Stores list, adding it when it is new.
func (s *Store) intern(list []string) uint32 {
	if len(list) == 0 {
		return 0
	}
	var buf [256]byte
	b := buf[:0]
	for _, name := range list {
		b = appendName(b, kindExact, name)
	}
	if id, ok := s.setIDs[string(b)]; ok {
		return id
	}
	id := uint32(len(s.sets) + 1)
	s.setIDs[string(b)] = id
	s.sets = append(s.sets, slices.Clone(list))
	var names []string
	for _, name := range list {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	s.setNames = append(s.setNames, names)
	return id
}

// reintern interns the store lists of certs afresh, so that lists no
// longer used are not kept.
func (s *Store) reintern(certs []certstore.Certificate) {
	s.sets, s.setNames, s.setIDs = nil, s.setNames[:1], make(map[string]uint32)
	s.setOf = nil
	for i := range certs {
		s.setAt0(i, s.intern(certs[i].Stores), len(certs))
	}
}

// sameStores reports whether cfg, whose certificates are the published
// ones, also has the same stores and defaults (publishing it changes nothing).
func (s *Store) sameStores(cfg *certstore.Config, defStores []string, defKeys []pairKey, now time.Time) bool {
	n := len(cfg.Stores)
	if _, ok := cfg.Stores[certstore.DefaultStore]; !ok {
		n++
	}
	if n != len(s.declared) || len(defStores) != len(s.defaults) {
		return false
	}
	for name := range cfg.Stores {
		if !s.declared[name] {
			return false
		}
	}
	for j, name := range defStores {
		if e := s.entries[defKeys[j]]; e == nil || s.defaults[name] != e {
			return false
		}
	}
	return !s.usesGen || now.Before(s.genExpiry)
}

// nameKey is one name of a store's tables: its kind and text.
type nameKey struct {
	kind byte
	name string
}

// delta is what an update does to one name of one store: the claimants
// (one per position) that leave and that arrive.
type delta struct {
	gone, come []*entry
}

// updateTables fills g.stores from old's, copying only the shards the
// changes touch. gone and come are the positions that left and arrived.
func (s *Store) updateTables(g, old *generation, gone, come []placed) {
	per := make(map[string]map[nameKey]*delta)
	note := func(p placed, arrive bool) {
		for _, store := range s.setNames[p.set] {
			if !s.declared[store] {
				continue // a store that is gone: its tables go with it
			}
			d := per[store]
			if d == nil {
				d = make(map[nameKey]*delta)
				per[store] = d
			}
			for i := 0; i < len(p.e.names); {
				kind, name, next := nextName(p.e.names, i)
				i = next
				nd := d[nameKey{kind, name}]
				if nd == nil {
					nd = &delta{}
					d[nameKey{kind, name}] = nd
				}
				if arrive {
					nd.come = append(nd.come, p.e)
				} else {
					nd.gone = append(nd.gone, p.e)
				}
			}
		}
	}
	for _, p := range gone {
		note(p, false)
	}
	for _, p := range come {
		note(p, true)
	}
	for name := range s.declared {
		st := old.stores[name]
		if st == nil {
			st = &storeIndex{exact: noNames, wild: noNames, ip: noAddrs}
		}
		d := per[name]
		if len(d) == 0 {
			g.stores[name] = st
			continue
		}
		var exact, wild []change[string]
		var ip []change[netip.Addr]
		for nk, nd := range d {
			switch nk.kind {
			case kindExact:
				exact = append(exact, resolve(s, st.exact, hashKey(nk.name), nk.name, nd, name))
			case kindWild:
				wild = append(wild, resolve(s, st.wild, hashKey(nk.name), nk.name, nd, name))
			case kindIP:
				if addr, err := netip.ParseAddr(nk.name); err == nil {
					ip = append(ip, resolve(s, st.ip, hashAddr(addr), addr, nd, name))
				}
			}
		}
		nst := &storeIndex{exact: st.exact, wild: st.wild, ip: st.ip, def: st.def}
		if len(exact) > 0 {
			nst.exact = st.exact.with(exact)
		}
		if len(wild) > 0 {
			nst.wild = st.wild.with(wild)
		}
		if len(ip) > 0 {
			nst.ip = st.ip.with(ip)
		}
		g.stores[name] = nst
	}
}

// resolve returns the new state of key k (hash h) in table t when its
// claimants change by d: those left and the first in configuration order.
func resolve[K comparable](s *Store, t *table[K], h uint64, k K, d *delta, store string) change[K] {
	c := slices.Clone(t.claimants(h, k))
	for _, e := range d.gone {
		if i := slices.Index(c, e); i >= 0 {
			c = slices.Delete(c, i, i+1)
		}
	}
	c = append(c, d.come...)
	ch := change[K]{h: h, k: k}
	switch len(c) {
	case 0:
	case 1:
		ch.winner = c[0]
	default:
		ch.winner = s.first(c, store)
		ch.claimants = c
	}
	return ch
}

// first returns the entry among c first in s.order in the named store
// (a scan, only for names several positions claim that an update touches).
func (s *Store) first(c []*entry, store string) *entry {
	for i, e := range s.order {
		if slices.Contains(c, e) && slices.Contains(s.setNames[s.setAt(i)], store) {
			return e
		}
	}
	return c[0] // not reached: every claimant is at a position in the store
}

// buildAll fills g.stores from scratch; a name maps to the first
// certificate claiming it (the certstore tie-break).
func (s *Store) buildAll(g *generation) {
	type builders struct {
		exact, wild *table[string]
		ip          *table[netip.Addr]
		nExact      int
		nWild, nIP  int
	}
	bs := make(map[string]*builders, len(s.declared))
	for name := range s.declared {
		bs[name] = &builders{}
	}
	resolved := make([][]*builders, len(s.setNames))
	for id, names := range s.setNames {
		for _, name := range names {
			if b := bs[name]; b != nil {
				resolved[id] = append(resolved[id], b)
			}
		}
	}
	for i, e := range s.order {
		for _, b := range resolved[s.setAt(i)] {
			b.nExact += int(e.nExact)
			b.nWild += int(e.nWild)
			b.nIP += int(e.nIP)
		}
	}
	for _, b := range bs {
		b.exact = newTable[string](b.nExact)
		b.wild = newTable[string](b.nWild)
		b.ip = newTable[netip.Addr](b.nIP)
	}
	for i, e := range s.order {
		for _, b := range resolved[s.setAt(i)] {
			for p := 0; p < len(e.names); {
				kind, name, next := nextName(e.names, p)
				p = next
				switch kind {
				case kindExact:
					b.exact.add(hashKey(name), name, e)
				case kindWild:
					b.wild.add(hashKey(name), name, e)
				case kindIP:
					if addr, err := netip.ParseAddr(name); err == nil {
						b.ip.add(hashAddr(addr), addr, e)
					}
				}
			}
		}
	}
	for name, b := range bs {
		g.stores[name] = &storeIndex{exact: b.exact.orEmpty(noNames), wild: b.wild.orEmpty(noNames), ip: b.ip.orEmpty(noAddrs)}
	}
}
