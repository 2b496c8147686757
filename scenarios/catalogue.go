package scenarios

import (
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"embed"
	"encoding/pem"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/yamlfile"
)

// Kind is the shape of churn a scenario applies.
type Kind string

// The kinds of scenario.
const (
	Rotate  Kind = "rotate"  // a window of Window certificates, moved by Window (cycling) per op
	Renew   Kind = "renew"   // the whole pool, Renew more certificates renewed per op (as ACME)
	Noop    Kind = "noop"    // the same whole pool per op
	Startup Kind = "startup" // the whole pool into a fresh store per op
	Lookup  Kind = "lookup"  // one lookup of the mix per op, the whole pool held
	// HandshakeUnderChurn runs lookups from several goroutines while
	// renew-1 refreshes run back to back.
	HandshakeUnderChurn Kind = "handshake-under-churn"
	// Handshake runs in-process crypto/tls handshakes served by the store;
	// with HandshakeSpec.Churn a second phase runs under renew-1 refreshes.
	Handshake Kind = "handshake"
	// Held is Renew while simulated connections hold earlier generations:
	// before each refresh a connection opens on the current generation,
	// and the oldest closes once Held are open (see Scenario.Held).
	Held Kind = "held"
)

// HandshakeSpec says how a Handshake scenario's clients connect and what
// churn runs meanwhile.
type HandshakeSpec struct {
	TLS12Share   float64       `yaml:"tls12_share"`   // 0 to 1, spread evenly; the rest TLS 1.3
	ResumeShare  float64       `yaml:"resume_share"`  // 0 to 1: resumes of the client's sessions
	Clients      int           `yaml:"clients"`       // concurrent clients; 0 means GOMAXPROCS
	Churn        bool          `yaml:"churn"`         // adds the phase under renew-1 refreshes
	RefreshEvery time.Duration `yaml:"refresh_every"` // the churn phase's period; 0: back to back
}

// Scenario is one entry of the catalogue: a pool, the churn applied to it,
// and how many ops make one sample.
type Scenario struct {
	Name, Description string // Description: one line for listings
	Kind              Kind   // the churn applied to Pool
	Pool              certgen.PoolSpec
	Window            int      // Rotate's certificates per configuration; 0: the whole pool
	Stores            []string // every certificate is in each, with a default; none: the default store
	Renew             int      // certificates Renew renews per refresh; 0 means 1
	Steps             []int    // a Sequence's refreshes, cycled: Steps[j] renewed in refresh j+1
	Held              int      // a Held scenario's connections open at once, each holding a generation
	Mix               LookupMix
	Ops               int  // ops per sample, fixed so that B/op compares run to run
	Default           bool // in the default set
	// Duration bounds a HandshakeUnderChurn sample, or each Handshake
	// phase (Ops bounds the lookups or handshakes).
	Duration  time.Duration
	Handshake HandshakeSpec
	Certs     *certgen.Source // when set, replaces the generated pool (WithSource)
}

// Catalogue lists every scenario, in the order listings and reports use.
// It is data: the scenario files of scenarios/catalogue, embedded, read
// with ParseFile in file-name order.
var Catalogue []Scenario

// init reads the catalogue once every package variable is set (ParseFile
// uses some through an interface the initialisation order does not see);
// an error is a bug (TestCatalogueFiles checks the files).
func init() {
	var err error
	if Catalogue, err = readCatalogue(catalogueFiles); err != nil {
		panic(err)
	}
}

//go:embed catalogue/*.yaml
var catalogueFiles embed.FS

// readCatalogue reads every *.yaml file of the catalogue directory of fsys
// in name order, each a scenario whose name is the file's name after its
// "NN-" order prefix.
func readCatalogue(fsys fs.FS) ([]Scenario, error) {
	names, err := fs.Glob(fsys, "catalogue/*.yaml")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []Scenario
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		sc, err := ParseFile(data, name)
		if err != nil {
			return nil, err
		}
		base := strings.TrimSuffix(path.Base(name), ".yaml")
		if _, want, _ := strings.Cut(base, "-"); want != sc.Name {
			return nil, fmt.Errorf("%s: the file of scenario %s is named NN-%s.yaml", name, sc.Name, sc.Name)
		}
		if slices.ContainsFunc(out, func(o Scenario) bool { return o.Name == sc.Name }) {
			return nil, fmt.Errorf("%s: scenario %s defined twice", name, sc.Name)
		}
		out = append(out, sc)
	}
	return out, nil
}

// ByName returns the named scenarios in the order given, or an error naming
// the unknown ones and listing the valid names.
func ByName(names ...string) ([]Scenario, error) {
	var out []Scenario
	var unknown []string
	hint := ""
	for _, n := range names {
		i := slices.IndexFunc(Catalogue, func(s Scenario) bool { return s.Name == n })
		if i < 0 {
			unknown = append(unknown, fmt.Sprintf("%q", n))
			hint = cmp.Or(hint, yamlfile.DidYouMean(n, Names(false)))
			continue
		}
		out = append(out, Catalogue[i])
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown scenario %s%s (valid: %s)", strings.Join(unknown, ", "), hint, strings.Join(Names(false), ", "))
	}
	return out, nil
}

// Names returns the names of the catalogue's scenarios, only the default set
// when defaultOnly is true.
func Names(defaultOnly bool) []string {
	var ns []string
	for _, s := range Catalogue {
		if s.Default || !defaultOnly {
			ns = append(ns, s.Name)
		}
	}
	return ns
}

// Defaults returns the default scenario set.
func Defaults() []Scenario {
	s, _ := ByName(Names(true)...)
	return s
}

// Workload is a scenario made concrete: every configuration it applies,
// built before anything is timed.
type Workload struct {
	Scenario Scenario
	// Configs[0] is applied before timing, then Configs[1..Ops] one per
	// timed op; Lookup workloads have one.
	Configs    []*certstore.Config
	FreshStore bool                   // every op applies to a new store (Startup)
	Hellos     []*tls.ClientHelloInfo // the lookups, cycled, in the store Store
	Store      string
	Certs      int               // certificates in the last configuration
	Next       *certstore.Config // after the last, for the peak-heap pass
	// Issuer, DefaultLeaf (DER of Store's default, what a miss is served)
	// and Misses (per hello) are a Handshake workload's.
	Issuer      *x509.Certificate
	DefaultLeaf []byte
	Misses      []bool
}

// Build makes the workload of a scenario with ops timed ops (0 means
// s.Ops). It is deterministic: equal arguments give equal configurations.
func (s Scenario) Build(ops int) (*Workload, error) {
	if ops <= 0 {
		ops = s.Ops
	}
	s.Ops = ops // the workload's scenario says how many ops it was built for
	pool, err := s.pool()
	if err != nil {
		return nil, err
	}
	w := &Workload{Scenario: s, Store: certstore.DefaultStore}
	n := len(pool.Certs)
	if n == 0 && s.Kind != Handshake {
		return nil, fmt.Errorf("scenario %s: no certificates in the pool", s.Name)
	}
	switch s.Kind {
	case Rotate:
		w.Configs, w.Certs = s.rotateConfigs(pool, ops)
	case Noop, Startup:
		for op := 0; op <= ops+1; op++ {
			w.Configs = append(w.Configs, s.wholePool(pool, nil))
		}
		w.FreshStore = s.Kind == Startup
		w.Certs = n
	case Renew, Sequence, Held:
		if w.Configs, err = s.renewConfigs(pool, ops); err != nil {
			return nil, err
		}
		w.Certs = n
		if s.Kind == Held {
			if s.Held < 1 || s.Held > MaxHeld {
				return nil, fmt.Errorf("scenario %s: %d held generations, want 1 to %d", s.Name, s.Held, MaxHeld)
			}
			if w.Hellos, w.Store, err = s.hellos(pool, 1); err != nil { // the held connections' lookup
				return nil, err
			}
		}
	case HandshakeUnderChurn:
		if err := s.buildChurn(pool, w, ops); err != nil {
			return nil, err
		}
	case Lookup:
		w.Configs = []*certstore.Config{s.wholePool(pool, nil)}
		if w.Hellos, w.Store, err = s.hellos(pool, ops); err != nil {
			return nil, err
		}
		w.Certs = n
	case Handshake:
		if err := s.buildHandshake(pool, w); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("scenario %s: unknown kind %q", s.Name, s.Kind)
	}
	if s.Kind == Rotate || s.Kind == Renew || s.Kind == Sequence || s.Kind == Held || s.Kind == Noop || s.Kind == Startup {
		// One configuration more than the ops: the peak-heap pass's.
		w.Next = w.Configs[len(w.Configs)-1]
		w.Configs = w.Configs[:len(w.Configs)-1]
	}
	if len(s.Stores) > 0 {
		w.Store = s.Stores[0]
	}
	if w.Store == "" {
		w.Store = certstore.DefaultStore
	}
	return w, nil
}

// rotateConfigs returns the ops+2 configurations of a Rotate workload, a
// window moving by its own size (cycling) each time, and the window.
func (s Scenario) rotateConfigs(pool *certgen.Pool, ops int) ([]*certstore.Config, int) {
	n := len(pool.Certs)
	win := s.window(n)
	var cfgs []*certstore.Config
	for op := 0; op <= ops+1; op++ {
		start := (op * win) % n
		cfg := &certstore.Config{Stores: s.sourceStoreConfigs()}
		for k := 0; k < win; k++ {
			i := (start + k) % n
			cfg.Certificates = append(cfg.Certificates, certstore.Certificate{KeyPair: pool.Certs[i].Pair, Stores: s.sourceStores(i)})
		}
		cfgs = append(cfgs, cfg)
	}
	return cfgs, win
}

// window is Rotate's certificates per configuration in a pool of n.
func (s Scenario) window(n int) int {
	if s.Window <= 0 || s.Window > n {
		return n
	}
	return s.Window
}

// renewConfigs returns the ops+2 configurations of a Renew or Sequence
// workload: refresh op renews the next renewals(op) certificates of the
// pool (in order, cycling) once more, and every other certificate keeps
// its version, so each refresh changes exactly those.
func (s Scenario) renewConfigs(pool *certgen.Pool, ops int) ([]*certstore.Config, error) {
	if s.Kind == Sequence && len(s.Steps) == 0 {
		return nil, fmt.Errorf("scenario %s: a sequence without steps", s.Name)
	}
	n := len(pool.Certs)
	version := make([]int, n)
	pairs := make([]certstore.KeyPair, n) // each certificate's current version
	for i := range pairs {
		pairs[i] = pool.Certs[i].Pair
	}
	next := 0
	var cfgs []*certstore.Config
	for op := 0; op <= ops+1; op++ {
		for range s.renewals(op, n) {
			i := next % n
			next++
			version[i]++
			f, err := pool.Renewed(i, version[i])
			if err != nil {
				return nil, err
			}
			pairs[i] = f.Pair
		}
		cfgs = append(cfgs, s.wholePool(pool, func(i int) certstore.KeyPair { return pairs[i] }))
	}
	return cfgs, nil
}

// renewals returns the number of certificates refresh op (0: the
// configuration before the first) renews in a pool of n: none before the
// first; Renew for a Renew scenario (at least 1); the op's step, cycling,
// for a Sequence; never more than n.
func (s Scenario) renewals(op, n int) int {
	switch {
	case op == 0:
		return 0
	case s.Kind == Sequence:
		return min(n, s.Steps[(op-1)%len(s.Steps)])
	}
	return min(n, max(1, s.Renew))
}

// wholePool returns a configuration holding every certificate of the pool,
// pair(i) giving certificate i's current version (nil: the original).
// Every configuration gets its own Certificates slice, as a proxy builds a
// new configuration on every refresh.
func (s Scenario) wholePool(pool *certgen.Pool, pair func(i int) certstore.KeyPair) *certstore.Config {
	cfg := &certstore.Config{Certificates: make([]certstore.Certificate, len(pool.Certs))}
	for i := range pool.Certs {
		p := pool.Certs[i].Pair
		if pair != nil {
			p = pair(i)
		}
		cfg.Certificates[i] = certstore.Certificate{KeyPair: p, Stores: s.sourceStores(i)}
	}
	cfg.Stores = s.sourceStoreConfigs()
	if len(s.Stores) > 0 {
		cfg.Stores = make(map[string]certstore.StoreConfig, len(s.Stores))
		for k, name := range s.Stores {
			def := defaultCert(pool, k)
			cfg.Stores[name] = certstore.StoreConfig{DefaultCertificate: &def}
		}
	}
	return cfg
}

// defaultCert returns a configured default certificate for store k of a
// pool: issued by the pool's issuer, named after no pool name.
func defaultCert(pool *certgen.Pool, k int) certstore.KeyPair {
	key, err := pool.Issuer().P256Key(1<<40+uint64(k), 0)
	if err != nil {
		panic(err) // derivation retries until a valid scalar; cannot fail in practice
	}
	pair, err := pool.Issuer().Issue(certgen.Leaf{Serial: 1<<40 + uint64(k), CommonName: fmt.Sprintf("default-%d.%s", k, pool.Spec.Domain), Key: key})
	if err != nil {
		panic(err)
	}
	return pair
}

// lookupMix returns count ClientHellos (at most ChurnHellos distinct)
// cycling over the pool in the scenario's mix: exact names, children of
// wildcard names and misses.
func (s Scenario) lookupMix(pool *certgen.Pool, count int) []*tls.ClientHelloInfo {
	var wild []string
	for _, f := range pool.Certs {
		for _, name := range f.Names {
			if strings.HasPrefix(name, "*.") {
				wild = append(wild, name[2:])
			}
		}
	}
	n := len(pool.Certs)
	return mixHellos(count, s.Mix, func(kind, i int) string {
		switch kind {
		case exactSlot:
			f := pool.Certs[(i*7)%n]
			if sni := f.Names[i%len(f.Names)]; !strings.HasPrefix(sni, "*.") {
				return sni
			}
			return f.Names[0]
		case upperSlot:
			return pool.Certs[(i*13)%n].Names[0]
		case wildSlot:
			if len(wild) == 0 {
				return pool.Certs[i%n].Names[0]
			}
			return fmt.Sprintf("host%d.%s", i, wild[i%len(wild)])
		}
		return fmt.Sprintf("scan-%d.unknown.%s", i, pool.Spec.Domain)
	})
}

// The kinds of slot of a lookup mix.
const (
	exactSlot = iota // an exact name
	upperSlot        // an exact name in upper case (every sixth exact slot)
	wildSlot         // a child of a wildcard name
	missSlot         // a name no certificate matches
)

// mixHellos returns count ClientHellos (at most ChurnHellos distinct) whose
// server names pick(kind, i) gives for the i-th slot of the mix's cycle
// (upper-cased for upperSlot).
func mixHellos(count int, mix LookupMix, pick func(kind, i int) string) []*tls.ClientHelloInfo {
	count = min(count, ChurnHellos)
	hellos := make([]*tls.ClientHelloInfo, 0, count)
	length, exact, wildcard := mix.slots()
	for i := 0; len(hellos) < count; i++ {
		var sni string
		switch slot := i % length; {
		case slot < exact && slot%6 != 5:
			sni = pick(exactSlot, i)
		case slot < exact:
			sni = strings.ToUpper(pick(upperSlot, i))
		case slot < exact+wildcard:
			sni = pick(wildSlot, i)
		default:
			sni = pick(missSlot, i)
		}
		hellos = append(hellos, &tls.ClientHelloInfo{ServerName: sni})
	}
	return hellos
}

// HandshakeChurnSteps is the number of renew-1 configurations the churn
// phase of a Handshake workload walks through, forward and back as
// ChurnStep says (fewer than ChurnSteps: handshake pools are large).
const HandshakeChurnSteps = 16

// buildHandshake makes a Handshake workload: the whole pool (and, for a
// churn scenario, the renew-1 configurations the refresher walks), the
// lookup mix with each hello's miss flag, the issuer clients trust and
// the default certificate misses must be served.
func (s Scenario) buildHandshake(pool *certgen.Pool, w *Workload) error {
	if len(s.Stores) == 0 {
		// Misses are verified against a configured default: a generated
		// one is not issued by the pool's issuer.
		return fmt.Errorf("scenario %s: a handshake scenario needs a named store (with its configured default)", s.Name)
	}
	if s.Handshake.Churn {
		renew := s
		renew.Kind = Renew
		rw, err := renew.Build(max(1, min(HandshakeChurnSteps, len(pool.Certs))))
		if err != nil {
			return err
		}
		w.Configs = rw.Configs
	} else {
		w.Configs = []*certstore.Config{s.wholePool(pool, nil)}
	}
	w.Certs = len(pool.Certs)
	w.Hellos = s.lookupMix(pool, ChurnHellos)
	w.Issuer = pool.Issuer().Certificate()
	def := defaultCert(pool, 0)
	block, _ := pem.Decode(def.CertPEM)
	if block == nil {
		return fmt.Errorf("scenario %s: default certificate has no PEM block", s.Name)
	}
	w.DefaultLeaf = block.Bytes
	names := nameSet{}
	for _, f := range pool.Certs {
		for _, n := range f.Names {
			names[strings.ToLower(n)] = true
		}
	}
	w.Misses = make([]bool, len(w.Hellos))
	for i, h := range w.Hellos {
		w.Misses[i] = !names.matches(certstore.NormalizeServerName(h.ServerName))
	}
	return nil
}

// nameSet holds certificate names, lowercased.
type nameSet map[string]bool

// matches reports whether a name of the set serves sni, exactly or as a wildcard.
func (ns nameSet) matches(sni string) bool {
	parent, ok := certstore.WildcardParent(sni)
	return ns[sni] || ok && ns["*."+parent]
}

// CheckSimulate reports whether the simulated CPU (certbench run
// --simulate) can measure sc:
// refresh and lookup scenarios, not the handshake ones, whose clients,
// servers and timers make their instruction counts depend on scheduling.
func (sc Scenario) CheckSimulate() error {
	switch sc.Kind {
	case Handshake, HandshakeUnderChurn:
		return fmt.Errorf("scenario %s: the simulate instrument measures refresh and lookup scenarios; %s scenarios run concurrent clients and timers whose instruction counts depend on scheduling (measure them with the clock, without --simulate)", sc.Name, sc.Kind)
	case Held:
		return fmt.Errorf("scenario %s: held scenarios measure the heap and goroutines that held generations keep, not instructions (measure them with the clock, without --simulate)", sc.Name)
	}
	return nil
}
