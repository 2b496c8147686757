package scenarios

import (
	"crypto/tls"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
)

// Scenarios on the user's certificates (Certs set) use their own stores
// and defaults unless the scenario names stores; lookups draw names from
// the store looked in (see hellos).

// CertsSuffix ends the name of every scenario made by WithSource.
const CertsSuffix = "certs"

// WithSource returns sc run on src's certificates, renamed (…-certs) so
// that its results are never mistaken for the generated pool's, its
// numbers fitted to the source: a rotate window keeps its share (at least
// 1), refreshes get SweepOps for the size (half for startup). Handshake
// scenarios, rotating fewer than 2 certificates, and no certificates are
// errors.
func WithSource(sc Scenario, src *certgen.Source) (Scenario, error) {
	if src == nil {
		return sc, fmt.Errorf("scenario %s: no certificate source", sc.Name)
	}
	n := len(src.Certs)
	if err := canRunOn(sc, n); err != nil {
		return sc, err
	}
	inCatalogue := slices.ContainsFunc(Catalogue, func(c Scenario) bool { return c.Name == sc.Name })
	if sc.Kind == Rotate {
		win := sc.window(n)
		if c := sc.Pool.Count; c > 0 && n < c && sc.Window > 0 {
			win = max(1, n*sc.Window/c)
		}
		sc.Window = win
	}
	stores := max(1, len(sc.Stores))
	switch sc.Kind {
	case Renew, Noop:
		sc.Ops = SweepOps(n * stores)
	case Startup:
		sc.Ops = max(1, SweepOps(n*stores)/2)
	}
	if inCatalogue {
		sc.Name = sourceName(sc)
	} else {
		sc.Name += "-" + CertsSuffix
	}
	sc.Description = fmt.Sprintf("%s; on the %d loaded certificates", catalogueGist(sc), n)
	sc.Pool = certgen.PoolSpec{}
	sc.Certs = src
	sc.Default = sc.Default && inCatalogue
	return sc, nil
}

// canRunOn reports why sc cannot run on n loaded certificates, or nil.
func canRunOn(sc Scenario, n int) error {
	switch {
	case sc.Kind == Handshake:
		return fmt.Errorf("scenario %s: handshake scenarios verify chains against the generated issuer and cannot run on loaded certificates", sc.Name)
	case n == 0:
		return fmt.Errorf("scenario %s: the certificate source has no certificates", sc.Name)
	case sc.Kind == Rotate && n < 2:
		return fmt.Errorf("scenario %s: rotating needs at least 2 certificates, the source has %d", sc.Name, n)
	}
	return nil
}

// sourceName is the name of a catalogue scenario on loaded certificates.
func sourceName(sc Scenario) string {
	switch sc.Kind {
	case Rotate:
		return fmt.Sprintf("rotate-%d-of-%s", sc.Window, CertsSuffix)
	case Renew:
		if len(sc.Stores) > 0 {
			return "multistore-" + CertsSuffix
		}
		return "renew-1-of-" + CertsSuffix
	}
	return string(sc.Kind) + "-" + CertsSuffix
}

// catalogueGist describes what a scenario on loaded certificates does.
func catalogueGist(sc Scenario) string {
	switch sc.Kind {
	case Rotate:
		return fmt.Sprintf("the next %d of the certificates on every refresh", sc.Window)
	case Renew:
		if len(sc.Stores) > 0 {
			return fmt.Sprintf("the certificates each in %d named stores with configured defaults, one renewed per refresh", len(sc.Stores))
		}
		return "the certificates re-applied on every refresh, one renewed each time"
	case Noop:
		return "the same certificates re-applied on every refresh"
	case Startup:
		return "the certificates loaded into a fresh store"
	case Lookup:
		return "handshake lookups: 60% exact, 20% wildcard, 20% misses"
	}
	return sc.Description
}

// ForSource returns the named scenarios (catalogue or WithSource names) on
// src, each once, in order; no names means the default set, without those
// src cannot run, which notes explain.
func ForSource(src *certgen.Source, names ...string) (scs []Scenario, notes []string, err error) {
	if src == nil {
		return nil, nil, fmt.Errorf("no certificate source")
	}
	if len(src.Certs) == 0 {
		return nil, nil, fmt.Errorf("the certificate source has no certificates")
	}
	seen := map[string]bool{}
	add := func(sc Scenario) {
		if !seen[sc.Name] {
			seen[sc.Name] = true
			scs = append(scs, sc)
		}
	}
	if len(names) == 0 {
		leftOut := map[Kind]bool{}
		for _, c := range Defaults() {
			if sc, err := WithSource(c, src); err == nil {
				add(sc)
			} else if !leftOut[c.Kind] {
				leftOut[c.Kind] = true
				notes = append(notes, fmt.Sprintf("%s scenarios left out: %v", c.Kind, err))
			}
		}
		return scs, notes, nil
	}
	var unknown []string
	for _, name := range names {
		i := slices.IndexFunc(Catalogue, func(c Scenario) bool {
			sc, err := WithSource(c, src)
			return c.Name == name || err == nil && sc.Name == name
		})
		if i < 0 {
			unknown = append(unknown, fmt.Sprintf("%q", name))
			continue
		}
		sc, err := WithSource(Catalogue[i], src)
		if err != nil {
			return nil, nil, err
		}
		add(sc)
	}
	if len(unknown) > 0 {
		var valid []string
		for _, c := range Catalogue {
			if sc, err := WithSource(c, src); err == nil && !slices.Contains(valid, sc.Name) {
				valid = append(valid, sc.Name)
			}
		}
		return nil, nil, fmt.Errorf("unknown scenario %s (valid on loaded certificates: %s, or the catalogue's names)",
			strings.Join(unknown, ", "), strings.Join(valid, ", "))
	}
	return scs, nil, nil
}

// pool returns the loaded certificates when Certs is set, else the generated pool.
func (s Scenario) pool() (*certgen.Pool, error) {
	if s.Certs == nil {
		return certgen.CachedPool(s.Pool)
	}
	if s.Kind == Handshake {
		return nil, fmt.Errorf("scenario %s: handshake scenarios cannot run on loaded certificates", s.Name)
	}
	return s.Certs.Pool()
}

// sourceStores returns loaded certificate i's stores; nil for a generated pool.
func (s Scenario) sourceStores(i int) []string {
	if s.Certs == nil || len(s.Stores) > 0 {
		return s.Stores
	}
	return s.Certs.Certs[i].Stores
}

// sourceStoreConfigs returns the loaded source's stores and defaults as a
// new map; nil for a generated pool.
func (s Scenario) sourceStoreConfigs() map[string]certstore.StoreConfig {
	if s.Certs == nil || len(s.Stores) > 0 {
		return nil
	}
	return s.Certs.Config().Stores
}

// lookupStore is where lookups go on loaded certificates without scenario
// stores: the store of most certificates (ties: default, then by name).
func (s Scenario) lookupStore() string {
	count := map[string]int{}
	for i := range s.Certs.Certs {
		for _, name := range certstore.StoresOf(&s.Certs.Certs[i].Certificate) {
			count[name]++
		}
	}
	best := certstore.DefaultStore
	for _, name := range slices.Sorted(maps.Keys(count)) {
		if count[name] > count[best] {
			best = name
		}
	}
	return best
}

// hellos returns count lookups (at most ChurnHellos distinct) and their
// store ("": the scenario's usual one): lookupMix, or sourceMix on loaded
// certificates.
func (s Scenario) hellos(pool *certgen.Pool, count int) ([]*tls.ClientHelloInfo, string, error) {
	if s.Certs == nil {
		return s.lookupMix(pool, count), "", nil
	}
	store := s.lookupStore()
	if len(s.Stores) > 0 {
		store = s.Stores[0]
	}
	var names [][]string
	for i := range pool.Certs {
		if slices.Contains(certstore.StoresOf(&certstore.Certificate{Stores: s.sourceStores(i)}), store) {
			names = append(names, pool.Certs[i].Names)
		}
	}
	h, err := sourceMix(names, count, s.Mix)
	if err != nil {
		return nil, "", fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return h, store, nil
}

// hostName reports whether a certificate name can be sent as an SNI (no IP
// address, spaces or control characters).
func hostName(n string) bool {
	if n == "" || strings.ContainsFunc(n, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return false
	}
	_, err := netip.ParseAddr(n)
	return err != nil
}

// sourceMix returns count ClientHellos (at most ChurnHellos distinct) over
// the certificates' host names in the mix's proportions, misses under
// certgen.SourceDomain.
func sourceMix(certs [][]string, count int, mix LookupMix) ([]*tls.ClientHelloInfo, error) {
	var exact, wild []string
	have := nameSet{}
	for _, names := range certs {
		for _, n := range names {
			if !hostName(n) {
				continue
			}
			n = strings.ToLower(n)
			if have[n] {
				continue
			}
			have[n] = true
			if parent, ok := strings.CutPrefix(n, "*."); ok {
				wild = append(wild, parent)
			} else {
				exact = append(exact, n)
			}
		}
	}
	if len(exact) == 0 && len(wild) == 0 {
		return nil, fmt.Errorf("no certificate in the store looked in has a host name to look up")
	}
	child := func(i int) string { return fmt.Sprintf("host%d.%s", i, wild[i%len(wild)]) }
	exactAt := func(i int) string {
		if len(exact) == 0 {
			return child(i)
		}
		return exact[i%len(exact)]
	}
	hellos := mixHellos(count, mix, func(kind, i int) string {
		switch kind {
		case exactSlot:
			return exactAt(i * 7)
		case upperSlot:
			return exactAt(i * 13)
		case wildSlot:
			if len(wild) == 0 {
				return exactAt(i)
			}
			return child(i)
		}
		sni := fmt.Sprintf("scan-%d.unknown.%s", i, certgen.SourceDomain)
		for k := 0; have.matches(sni); k++ {
			sni = fmt.Sprintf("scan-%d-%d.miss.%s", i, k, certgen.SourceDomain)
		}
		return sni
	})
	return hellos, nil
}
