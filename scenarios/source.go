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

// Scenarios on the user's certificates.
//
// A scenario whose Certs is set runs on a loaded certgen.Source instead of
// its generated pool: the certificates as they are, with their own stores
// and configured defaults (unless the scenario names stores: then, as on
// a generated pool, every certificate is in each of them, each with a
// generated default). Renewals (Renew, multistore, the churn of
// handshake-under-churn) re-sign a new leaf over the original's public key
// with a generated Ed25519 issuer, as certgen.Source.Pool describes.
// Lookups draw their server names from the names of the certificates in
// the store looked in, in the catalogue's proportions (see hellos).

// CertsSuffix ends the name of every scenario made by WithSource.
const CertsSuffix = "certs"

// WithSource returns sc run on the certificates of src (its Certs set),
// renamed so that its results are never mistaken for the generated
// pool's, with its fixed numbers fitted to the source:
//
//   - rotate-10-of-100 becomes rotate-W-of-certs: the window stays 10
//     when the source has at least the catalogue's 100 certificates;
//     on a smaller source it keeps the catalogue's share of the pool
//     (a tenth), at least 1 (rotate-1-of-certs for 2 to 19). It needs
//     at least 2 certificates: with one, every refresh is a no-op.
//   - Renew scenarios become renew-1-of-certs, or multistore-certs when
//     they name stores; noop-10000 becomes noop-certs, startup-10000
//     startup-certs, lookup-1000 lookup-certs, handshake-under-churn
//     handshake-under-churn-certs. A scenario not in the catalogue gets
//     "-certs" appended to its name.
//   - Refresh scenarios (renew, noop, startup) get the op count certbench
//     sweep gives their pool size (SweepOps of the certificates times the
//     stores each is in; half for startup), so a sample costs about the
//     same whatever the source's size; rotate and lookup keep theirs.
//
// Handshake scenarios cannot run on loaded certificates (their clients
// verify chains against the generated issuer), nor can any scenario on a
// source without certificates: those are errors.
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
		win := sc.Window
		if win <= 0 || win > n {
			win = n
		}
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

// canRunOn reports why scenario sc cannot run on n loaded certificates,
// or nil.
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

// ForSource returns the named scenarios (catalogue names, or the names
// WithSource gives them: "renew-1-of-1000" and "renew-1-of-certs" both
// name renew-1-of-certs) made with WithSource on src, each once, in the
// order named. No names means the default set on loaded certificates:
// the catalogue's default set, each made with WithSource, once each
// (rotate-10-of-100-rsa is rotate-10-of-100 once the keys are the
// source's, renew-1-of-10000 is renew-1-of-1000 once the pool is), and
// without the scenarios the source cannot run (rotate on a single
// certificate), each of which notes says why.
func ForSource(src *certgen.Source, names ...string) (scs []Scenario, notes []string, err error) {
	if src == nil {
		return nil, nil, fmt.Errorf("no certificate source")
	}
	if len(src.Certs) == 0 {
		return nil, nil, fmt.Errorf("the certificate source has no certificates")
	}
	seen := map[string]bool{}
	if len(names) == 0 {
		for _, c := range Defaults() {
			sc, err := WithSource(c, src)
			if err != nil {
				if !seen[string(c.Kind)+" left out"] {
					seen[string(c.Kind)+" left out"] = true
					notes = append(notes, fmt.Sprintf("%s scenarios left out: %v", c.Kind, err))
				}
				continue
			}
			if !seen[sc.Name] {
				seen[sc.Name] = true
				scs = append(scs, sc)
			}
		}
		return scs, notes, nil
	}
	var unknown, valid []string
	for _, name := range names {
		found := false
		for _, c := range Catalogue {
			sc, werr := WithSource(c, src)
			if werr == nil && !slices.Contains(valid, sc.Name) {
				valid = append(valid, sc.Name)
			}
			if c.Name != name && (werr != nil || sc.Name != name) {
				continue
			}
			found = true
			if werr != nil {
				return nil, nil, werr
			}
			if !seen[sc.Name] {
				seen[sc.Name] = true
				scs = append(scs, sc)
			}
			break
		}
		if !found {
			unknown = append(unknown, fmt.Sprintf("%q", name))
		}
	}
	if len(unknown) > 0 {
		return nil, nil, fmt.Errorf("unknown scenario %s (valid on loaded certificates: %s, or the catalogue's names)",
			strings.Join(unknown, ", "), strings.Join(valid, ", "))
	}
	return scs, nil, nil
}

// pool returns the scenario's certificates: the loaded ones when Certs
// is set, else the generated pool.
func (s Scenario) pool() (*certgen.Pool, error) {
	if s.Certs == nil {
		return certgen.CachedPool(s.Pool)
	}
	if s.Kind == Handshake {
		return nil, fmt.Errorf("scenario %s: handshake scenarios cannot run on loaded certificates", s.Name)
	}
	return s.Certs.Pool()
}

// sourceStores returns the stores loaded certificate i is in, nil for a
// generated pool.
func (s Scenario) sourceStores(i int) []string {
	if s.Certs == nil || len(s.Stores) > 0 {
		return s.Stores
	}
	return s.Certs.Certs[i].Stores
}

// sourceStoreConfigs returns the stores (and configured defaults) the
// loaded source declares, as a new map; nil for a generated pool.
func (s Scenario) sourceStoreConfigs() map[string]certstore.StoreConfig {
	if s.Certs == nil || len(s.Stores) > 0 {
		return nil
	}
	return s.Certs.Config().Stores
}

// lookupStore is the store lookups are made in on loaded certificates
// without scenario stores: the one holding the most certificates (the
// default store, then the first by name, on a tie).
func (s Scenario) lookupStore() string {
	count := map[string]int{}
	for i := range s.Certs.Certs {
		st := s.Certs.Certs[i].Stores
		if len(st) == 0 {
			st = []string{certstore.DefaultStore}
		}
		for _, name := range st {
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

// hellos returns count lookups (at most ChurnHellos distinct) and the
// store they are made in ("" for the scenario's usual store): on a
// generated pool lookupMix; on loaded certificates sourceMix over the
// certificates of the store looked in.
func (s Scenario) hellos(pool *certgen.Pool, count int) ([]*tls.ClientHelloInfo, string, error) {
	if s.Certs == nil {
		return s.lookupMix(pool, count), "", nil
	}
	store := certstore.DefaultStore
	if len(s.Stores) > 0 {
		store = s.Stores[0]
	} else {
		store = s.lookupStore()
	}
	var names [][]string
	for i := range pool.Certs {
		st := s.sourceStores(i)
		if slices.Contains(st, store) || (len(st) == 0 && store == certstore.DefaultStore) {
			names = append(names, pool.Certs[i].Names)
		}
	}
	h, err := sourceMix(names, count, s.Mix)
	if err != nil {
		return nil, "", fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return h, store, nil
}

// hostName reports whether a certificate name can be sent as an SNI: not
// an IP address, no spaces or control characters (a common name that is
// a label, not a host name).
func hostName(n string) bool {
	if n == "" || strings.ContainsFunc(n, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return false
	}
	_, err := netip.ParseAddr(n)
	return err != nil
}

// sourceMix returns count ClientHellos (at most ChurnHellos distinct) over
// the names of certificates, in lookupMix's proportions: of every ten,
// six exact names (one of them in upper case), two names under a
// wildcard of the certificates ("host7.example.com" under
// "*.example.com"; exact names when there is no wildcard) and two
// misses, names under SourceDomain that no certificate matches. IP
// addresses and common names that are not host names are never sent;
// certificates with none but wildcards give exact slots wildcard
// children.
func sourceMix(certs [][]string, count int, mix LookupMix) ([]*tls.ClientHelloInfo, error) {
	var exact, wild []string
	have := map[string]bool{}
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
	matches := func(sni string) bool {
		if have[sni] {
			return true
		}
		parent, ok := certstore.WildcardParent(sni)
		return ok && have["*."+parent]
	}
	child := func(i int) string { return fmt.Sprintf("host%d.%s", i, wild[i%len(wild)]) }
	exactAt := func(i int) string {
		if len(exact) == 0 {
			return child(i)
		}
		return exact[i%len(exact)]
	}
	count = min(count, ChurnHellos)
	hellos := make([]*tls.ClientHelloInfo, 0, count)
	length, nexact, nwild := mix.slots()
	for i := 0; len(hellos) < count; i++ {
		var sni string
		switch slot := i % length; {
		case slot < nexact && slot%6 != 5:
			sni = exactAt(i * 7)
		case slot < nexact:
			sni = strings.ToUpper(exactAt(i * 13))
		case slot < nexact+nwild:
			if len(wild) == 0 {
				sni = exactAt(i)
			} else {
				sni = child(i)
			}
		default:
			sni = fmt.Sprintf("scan-%d.unknown.%s", i, certgen.SourceDomain)
			for k := 0; matches(sni); k++ {
				sni = fmt.Sprintf("scan-%d-%d.miss.%s", i, k, certgen.SourceDomain)
			}
		}
		hellos = append(hellos, &tls.ClientHelloInfo{ServerName: sni})
	}
	return hellos, nil
}
