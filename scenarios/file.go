package scenarios

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/internal/yamlfile"
)

// Scenario files (the catalogue's and the user's): the struct file
// is the format, docs/scenarios.md documents it; errors name
// file:line:column and the field.

// MaxFileSize is the largest scenario file ParseFile is given by LoadFile.
const MaxFileSize = 1 << 20

// MaxSteps bounds a sequence's refreshes, each a whole configuration built
// before timing.
const MaxSteps = 100_000

// Sequence applies Scenario.Steps' refreshes to the whole pool, cycled.
const Sequence Kind = "sequence"

// MaxHeld bounds a Held scenario's open connections: each may keep a
// whole configuration alive.
const MaxHeld = 1000

// LookupMix is the percent of each kind of server name a lookup or
// handshake scenario sends, adding up to 100 (one in six exact names in
// upper case); the zero value means DefaultLookupMix.
type LookupMix struct {
	Exact    int `yaml:"exact"`
	Wildcard int `yaml:"wildcard"`
	Miss     int `yaml:"miss"`
}

// DefaultLookupMix is the mix of the catalogue's lookup scenarios.
var DefaultLookupMix = LookupMix{Exact: 60, Wildcard: 20, Miss: 20}

func (m LookupMix) orDefault() LookupMix {
	if m == (LookupMix{}) {
		return DefaultLookupMix
	}
	return m
}

// slots returns the mix as a cycle of slots: its length (10 when every
// share is a multiple of 10, else 100) and the number of exact and
// wildcard slots at its start (misses fill the rest).
func (m LookupMix) slots() (length, exact, wildcard int) {
	m = m.orDefault()
	if m.Exact%10 == 0 && m.Wildcard%10 == 0 && m.Miss%10 == 0 {
		return 10, m.Exact / 10, m.Wildcard / 10
	}
	return 100, m.Exact, m.Wildcard
}

// scenarioName is what a scenario's name may be: benchmark names and
// configuration keys allow no spaces, slashes or upper case.
var scenarioName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{0,63}$`)

// fileKinds are the churn kinds a file may name, in the order docs list them.
var fileKinds = []Kind{Rotate, Renew, Noop, Startup, Sequence, Held, Lookup, Handshake, HandshakeUnderChurn}

// FileError is an error in a scenario file: each problem names
// file:line:column and the field.
type FileError struct {
	File string
	Err  error // the problems joined, in document order
}

// Error says "scenario file:" and the problems, one a line.
func (e *FileError) Error() string { return "scenario file: " + e.Err.Error() }

// Unwrap returns the problems.
func (e *FileError) Unwrap() error { return e.Err }

// LoadFile reads the scenario file path (at most MaxFileSize bytes),
// loading a pool.certs source relative to the file's directory.
func LoadFile(path string) (Scenario, error) {
	data, err := yamlfile.ReadFile(path, "scenario file", MaxFileSize)
	if err != nil {
		return Scenario{}, err
	}
	sc, pool, err := parseFile(data, path)
	if err != nil {
		return Scenario{}, err
	}
	if certs := pool.Certs; certs != "" {
		if !filepath.IsAbs(certs) {
			certs = filepath.Join(filepath.Dir(path), certs)
		}
		src, err := certgen.Load(certs, certgen.SourceOptions{Strict: pool.Strict, IgnoreNamespaces: !pool.Namespaces})
		if err != nil {
			return Scenario{}, fmt.Errorf("scenario file %s: pool.certs: %w", path, err)
		}
		if sc, err = onSource(sc, src); err != nil {
			return Scenario{}, fmt.Errorf("scenario file %s: %w", path, err)
		}
	}
	return sc, nil
}

// ParseFile reads one scenario from data, the contents of the file name;
// a pool.certs source needs LoadFile.
func ParseFile(data []byte, name string) (Scenario, error) {
	sc, pool, err := parseFile(data, name)
	if err == nil && pool.Certs != "" {
		err = fmt.Errorf("scenario file %s: pool.certs needs the file on disk: use LoadFile", name)
	}
	return sc, err
}

// onSource returns sc run on src, checking what the source allows.
func onSource(sc Scenario, src *certgen.Source) (Scenario, error) {
	if err := canRunOn(sc, len(src.Certs)); err != nil {
		return sc, err
	}
	sc.Certs = src
	return sc, nil
}

// file is a scenario file as written (docs/scenarios.md); pointers are
// fields whose zero value differs from leaving them out.
type file struct {
	Name        string         `yaml:"name" check:"required"`
	Description string         `yaml:"description"`
	Default     bool           `yaml:"default"`
	Pool        *poolFile      `yaml:"pool" check:"required"`
	Stores      []string       `yaml:"stores"`
	Churn       *churnFile     `yaml:"churn" check:"required"`
	Lookup      *LookupMix     `yaml:"lookup"`
	Handshake   *HandshakeSpec `yaml:"handshake"`
	Ops         int            `yaml:"ops"`
	Duration    time.Duration  `yaml:"duration"`
}

type poolFile struct {
	Seed          uint64 `yaml:"seed"`
	Count         int    `yaml:"count"`
	Key           string `yaml:"key"`
	MaxSANs       *int   `yaml:"max_sans"`
	WildcardEvery *int   `yaml:"wildcard_every"` // 0: none; left out: the default
	IPEvery       int    `yaml:"ip_every"`
	Domain        string `yaml:"domain"`
	Certs         string `yaml:"certs"`
	Strict        bool   `yaml:"strict"`     // with Certs: fail on an unusable entry
	Namespaces    bool   `yaml:"namespaces"` // with Certs: a Secret list's namespaces are stores
}

type churnFile struct {
	Kind   Kind   `yaml:"kind"`
	Window int    `yaml:"window"`
	Renew  *int   `yaml:"renew"`
	Held   int    `yaml:"held"`
	Steps  []step `yaml:"steps"`
	Spread *struct {
		Renewals  *int `yaml:"renewals"`
		Refreshes int  `yaml:"refreshes"`
	} `yaml:"spread"`
}

type step struct {
	Renew  *int `yaml:"renew"`
	Repeat *int `yaml:"repeat"`
}

// parseFile reads a scenario and its pool as written (Certs "" for a
// generated pool).
func parseFile(data []byte, name string) (Scenario, poolFile, error) {
	var f file
	if err := yamlfile.Decode(data, name, "a scenario (name, pool, churn, ops)", &f); err != nil {
		return Scenario{}, poolFile{}, &FileError{File: name, Err: err}
	}
	return f.scenario(), *f.Pool, nil
}

// problems collects what a Validate method finds, as yamlfile.FieldErrors.
type problems []error

func (p *problems) bad(field, format string, args ...any) {
	*p = append(*p, yamlfile.Errorf(field, format, args...))
}

func (p *problems) key(field, format string, args ...any) {
	*p = append(*p, yamlfile.KeyErrorf(field, format, args...))
}

func (p *problems) inRange(field string, v, least, most int, what string) {
	if v < least || v > most {
		p.bad(field, "want %s from %d to %d", what, least, most)
	}
}

func (p problems) err() error { return errors.Join(p...) }

// Validate checks what the types of file do not say.
func (f *file) Validate() error {
	var errs problems
	if !scenarioName.MatchString(f.Name) {
		errs.bad("name", "want 1 to 64 lower-case letters, digits, '-' or '.', starting with a letter or digit (it goes into benchmark names)")
	}
	for i, s := range f.Stores {
		if slices.Index(f.Stores, s) != i {
			errs.bad(fmt.Sprintf("stores[%d]", i), "named twice")
		}
	}
	if f.Pool != nil {
		errs = append(errs, yamlfile.Within("pool", f.Pool.validate()))
	}
	if f.Churn == nil {
		return errs.err()
	}
	kind := f.Churn.Kind
	errs = append(errs, yamlfile.Within("churn", f.Churn.validate()))
	if !slices.Contains(fileKinds, kind) { // what else a file may hold depends on the kind
		return errs.err()
	}
	lookups := kind == Lookup || kind == Handshake || kind == HandshakeUnderChurn
	timed := kind == Handshake || kind == HandshakeUnderChurn
	errs = append(errs, f.validateLookups(kind, lookups)...)
	if kind != Sequence || f.Ops != 0 {
		if f.Ops < 1 || f.Ops > 1<<30 {
			errs.bad("ops", "want the ops in one sample, from 1 to %d: fixed, so that B/op and allocs/op compare run to run", 1<<30)
		}
	}
	switch {
	case timed && (f.Duration <= 0 || f.Duration > time.Hour):
		errs.bad("duration", "want the time bound of one sample, from 1ns to 1h, such as 2s")
	case !timed && f.Duration != 0:
		errs.key("duration", "only handshake and handshake-under-churn scenarios are bounded in time (churn.kind is %s); the others run ops", kind)
	}
	if kind == Held && f.Churn.Held > f.Ops && f.Ops > 0 {
		errs.bad("ops", "want at least churn.held (%d) refreshes: each opens one connection on the generation it replaces", f.Churn.Held)
	}
	if kind == Handshake && len(f.Stores) == 0 {
		errs.bad("stores", "a handshake scenario needs a named store (misses are served its configured default)")
	}
	if kind == Handshake && f.Pool != nil && f.Pool.Certs != "" {
		errs.bad("pool.certs", "handshake scenarios verify chains against the generated issuer and cannot run on loaded certificates")
	}
	return errs.err()
}

// validateLookups checks the lookup and handshake settings of a scenario
// of kind (lookups: a kind that looks up names).
func (f *file) validateLookups(kind Kind, lookups bool) problems {
	var errs problems
	switch {
	case f.Lookup == nil:
	case !lookups:
		errs.key("lookup", "only lookup, handshake and handshake-under-churn scenarios look up names (churn.kind is %s)", kind)
	case f.Lookup.Exact+f.Lookup.Wildcard+f.Lookup.Miss != 100:
		m := f.Lookup
		errs.bad("lookup", "exact %d + wildcard %d + miss %d = %d: the shares are percentages and add up to 100", m.Exact, m.Wildcard, m.Miss, m.Exact+m.Wildcard+m.Miss)
	case f.Lookup.Exact == 0:
		errs.bad("lookup.exact", "at least one exact name in a hundred lookups is needed")
	}
	if m := f.Lookup; m != nil {
		for key, v := range map[string]int{"exact": m.Exact, "wildcard": m.Wildcard, "miss": m.Miss} {
			errs.inRange("lookup."+key, v, 0, 100, "percent")
		}
	}
	if h := f.Handshake; h != nil {
		if kind != Handshake {
			errs.key("handshake", "only handshake scenarios take handshake settings (churn.kind is %s)", kind)
		}
		for key, v := range map[string]float64{"tls12_share": h.TLS12Share, "resume_share": h.ResumeShare} {
			if !(v >= 0 && v <= 1) {
				errs.bad("handshake."+key, "want a fraction from 0 to 1")
			}
		}
		errs.inRange("handshake.clients", h.Clients, 0, 4096, "clients (0: GOMAXPROCS)")
		if h.RefreshEvery != 0 {
			errs.inRange("handshake.refresh_every", int(min(h.RefreshEvery, time.Hour+1)), 1, int(time.Hour), "a duration (in ns)")
		}
	}
	return errs
}

// validate checks a pool.
func (p *poolFile) validate() error {
	var errs problems
	if p.Certs != "" {
		for key, set := range map[string]bool{"seed": p.Seed != 0, "count": p.Count != 0, "key": p.Key != "", "max_sans": p.MaxSANs != nil,
			"wildcard_every": p.WildcardEvery != nil, "ip_every": p.IPEvery != 0, "domain": p.Domain != ""} {
			if set {
				errs.key(key, "pool.certs replaces the generated pool: leave out %s", key)
			}
		}
		return errs.err()
	}
	for key, set := range map[string]bool{"strict": p.Strict, "namespaces": p.Namespaces} {
		if set {
			errs.key(key, "applies to pool.certs, a certificate source")
		}
	}
	if p.Count < 1 || p.Count > 1_000_000 {
		errs.bad("count", "want certificates from 1 to 1000000 (or pool.certs, a certificate source)")
	}
	if p.Seed > 1<<31 {
		errs.bad("seed", "want a seed from 0 to %d", 1<<31)
	}
	if k := certgen.KeyType(p.Key); p.Key != "" && k != certgen.P256 && k != certgen.RSA2048 && k != certgen.Mixed {
		errs.bad("key", "want %s, %s or %s (3 P-256 to 1 RSA-2048)", certgen.P256, certgen.RSA2048, certgen.Mixed)
	}
	if p.MaxSANs != nil && (*p.MaxSANs < 1 || *p.MaxSANs > 100) {
		errs.bad("max_sans", "want DNS names from 1 to 100")
	}
	if p.WildcardEvery != nil && (*p.WildcardEvery < 0 || *p.WildcardEvery > 1_000_000) {
		errs.bad("wildcard_every", "want certificates from 0 (no wildcards) to 1000000")
	}
	if p.IPEvery < 0 || p.IPEvery > 1_000_000 {
		errs.bad("ip_every", "want certificates from 0 (no IP SANs) to 1000000")
	}
	if d := p.Domain; strings.ContainsAny(d, " /*") || strings.HasPrefix(d, ".") || strings.HasSuffix(d, ".") {
		errs.bad("domain", "want a domain name such as example.test")
	}
	return errs.err()
}

// churnTakes are the fields of churn each kind takes besides kind.
var churnTakes = map[Kind][]string{Rotate: {"window"}, Renew: {"renew"}, Held: {"renew", "held"}, Sequence: {"steps", "spread"}}

// validate checks a churn.
func (c *churnFile) validate() error {
	var errs problems
	if !slices.Contains(fileKinds, c.Kind) {
		var names []string
		for _, k := range fileKinds {
			names = append(names, string(k))
		}
		errs.bad("kind", "want one of %s", strings.Join(names, ", "))
		return errs.err()
	}
	for key, set := range map[string]bool{"window": c.Window != 0, "renew": c.Renew != nil, "held": c.Held != 0, "steps": c.Steps != nil, "spread": c.Spread != nil} {
		if set && !slices.Contains(churnTakes[c.Kind], key) {
			errs.key(key, "a %s scenario does not take %s", c.Kind, key)
		}
	}
	switch c.Kind {
	case Rotate:
		errs.inRange("window", c.Window, 1, 1_000_000, "the certificates in each configuration,")
	case Renew, Held:
		if c.Renew != nil && (*c.Renew < 1 || *c.Renew > 1_000_000) {
			errs.bad("renew", "want certificates renewed per refresh from 1 to 1000000")
		}
		if c.Kind == Held {
			errs.inRange("held", c.Held, 1, MaxHeld, "connections open at once, each holding a generation,")
		}
	case Sequence:
		switch {
		case c.Steps == nil && c.Spread == nil:
			errs.bad("steps", "a sequence needs steps or spread")
		case c.Steps != nil && c.Spread != nil:
			errs.key("spread", "give steps or spread, not both")
		}
		total := 0
		for i, st := range c.Steps {
			at := fmt.Sprintf("steps[%d]", i)
			if st.Renew == nil || *st.Renew < 0 || *st.Renew > 1_000_000 {
				errs.bad(at+".renew", "want the certificates renewed in this refresh, from 0 (a no-op refresh) to 1000000")
			}
			repeat := 1
			if st.Repeat != nil {
				repeat = *st.Repeat
			}
			if total += repeat; repeat < 1 || repeat > MaxSteps {
				errs.bad(at+".repeat", "want refreshes from 1 to %d", MaxSteps)
			} else if total > MaxSteps {
				errs.bad(at+".repeat", "the steps add up to more than %d refreshes", MaxSteps)
				break
			}
		}
		if sp := c.Spread; sp != nil {
			switch {
			case sp.Renewals == nil || sp.Refreshes == 0:
				errs.bad("spread", "want both renewals and refreshes, e.g. {renewals: 150, refreshes: 1440}")
			case *sp.Renewals < 0 || *sp.Renewals > 1<<30:
				errs.bad("spread.renewals", "want certificates renewed in all from 0 to %d", 1<<30)
			case sp.Refreshes < 1 || sp.Refreshes > MaxSteps:
				errs.bad("spread.refreshes", "want refreshes from 1 to %d", MaxSteps)
			}
		}
	}
	return errs.err()
}

// scenario returns the scenario f describes, valid.
func (f *file) scenario() Scenario {
	c, p := f.Churn, f.Pool
	sc := Scenario{
		Name:        f.Name,
		Description: strings.Join(strings.Fields(f.Description), " "),
		Default:     f.Default,
		Kind:        c.Kind,
		Window:      c.Window,
		Stores:      f.Stores,
		Ops:         f.Ops,
		Duration:    f.Duration,
		Pool: certgen.PoolSpec{Seed: p.Seed, Count: p.Count, Key: certgen.KeyType(p.Key), IPEvery: p.IPEvery,
			Domain: strings.ToLower(p.Domain)},
	}
	if p.MaxSANs != nil {
		sc.Pool.MaxSANs = *p.MaxSANs
	}
	if w := p.WildcardEvery; w != nil {
		sc.Pool.WildcardEvery = *w
		if *w == 0 {
			sc.Pool.WildcardEvery = -1
		}
	}
	if f.Lookup != nil {
		sc.Mix = *f.Lookup
	}
	if f.Handshake != nil {
		sc.Handshake = *f.Handshake
	}
	if c.Kind == Renew || c.Kind == Held {
		sc.Held = c.Held
		sc.Renew = 1
		if c.Renew != nil {
			sc.Renew = *c.Renew
		}
	}
	for _, st := range c.Steps {
		repeat := 1
		if st.Repeat != nil {
			repeat = *st.Repeat
		}
		for range repeat {
			sc.Steps = append(sc.Steps, *st.Renew)
		}
	}
	if sp := c.Spread; sp != nil { // refresh j renews floor((j+1)R/F) - floor(jR/F)
		sc.Steps = make([]int, sp.Refreshes)
		for j := range sc.Steps {
			sc.Steps[j] = (j+1)**sp.Renewals/sp.Refreshes - j**sp.Renewals/sp.Refreshes
		}
	}
	if sc.Kind == Sequence && sc.Ops == 0 {
		sc.Ops = len(sc.Steps)
	}
	if sc.Description == "" {
		sc.Description = "scenario file " + sc.Name
	}
	return sc
}
