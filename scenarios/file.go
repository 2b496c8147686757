package scenarios

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// Scenario files.
//
// A scenario file is a small YAML document describing one scenario; the
// built-in catalogue is made of such files (scenarios/catalogue/*.yaml,
// embedded), and certbench's --scenario-file reads the user's. The format
// is documented, field by field, in docs/scenarios.md; in short:
//
//	name: renew-150-a-day              # [a-z0-9.-], used in benchmark names
//	description: "150 renewals spread over a day of minute refreshes"
//	pool:                              # a generated pool ...
//	  seed: 7
//	  count: 3000
//	  key: mixed                       # p256, rsa2048, or mixed (1 in 4 RSA-2048)
//	  max_sans: 4                      # each leaf has 1 to max_sans DNS names
//	  wildcard_every: 5                # every 5th leaf has a wildcard too; 0: none
//	  ip_every: 10                     # every 10th leaf has an IP SAN too; 0: none
//	  domain: example.test
//	  # certs: ./certs                 # ... or the user's certificates (as --certs)
//	stores: [edge-a, edge-b]           # every cert in each, each with a default
//	churn:
//	  kind: sequence                   # rotate, renew, noop, startup, lookup,
//	  spread:                          # sequence, handshake, handshake-under-churn
//	    renewals: 150
//	    refreshes: 1440
//	lookup: {exact: 60, wildcard: 20, miss: 20}
//	ops: 1440
//
// Every field is checked, and every error names file:line:column and the
// field, as the policy file's do.

// MaxFileSize is the largest scenario file ParseFile is given by LoadFile.
const MaxFileSize = 1 << 20

// MaxSteps bounds the refreshes a sequence describes (steps repeated, or
// spread.refreshes): every step is a whole configuration built before
// timing.
const MaxSteps = 100_000

// Sequence applies a list of refreshes, each renewing some certificates
// of the whole pool (none: a no-op refresh), in order and cycled: see
// Scenario.Steps.
const Sequence Kind = "sequence"

// LookupMix is the share of each kind of server name a lookup or
// handshake scenario sends, in percent; the zero value means the
// catalogue's 60% exact names (one in six of them in upper case), 20%
// children of wildcard names and 20% misses.
type LookupMix struct {
	// Exact, Wildcard and Miss are percentages; they add up to 100.
	Exact, Wildcard, Miss int
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

// scenarioName is what a scenario's name may be: it goes into benchmark
// names and configuration keys, which allow neither spaces, slashes nor
// upper case.
var scenarioName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{0,63}$`)

// fileKinds are the churn kinds a file may name, in the order docs list them.
var fileKinds = []Kind{Rotate, Renew, Noop, Startup, Sequence, Lookup, Handshake, HandshakeUnderChurn}

// FileError is an error in a scenario file: each problem names
// file:line:column and the field.
type FileError struct {
	// File is the file's name as given.
	File string
	// Err joins the problems (errors.Join), in document order.
	Err error
}

func (e *FileError) Error() string { return "scenario file: " + e.Err.Error() }

// Unwrap returns the problems.
func (e *FileError) Unwrap() error { return e.Err }

// LoadFile reads the scenario file path (a regular file of at most
// MaxFileSize bytes) with ParseFile. A pool.certs source is loaded
// relative to the file's directory, with opts.
func LoadFile(path string, opts certgen.SourceOptions) (Scenario, error) {
	data, err := yamlnode.ReadFile(path, "scenario file", MaxFileSize)
	if err != nil {
		return Scenario{}, err
	}
	sc, certs, err := parseFile(data, path)
	if err != nil {
		return Scenario{}, err
	}
	if certs != "" {
		if !filepath.IsAbs(certs) {
			certs = filepath.Join(filepath.Dir(path), certs)
		}
		src, err := certgen.Load(certs, opts)
		if err != nil {
			return Scenario{}, fmt.Errorf("scenario file %s: pool.certs: %w", path, err)
		}
		if sc, err = onSource(sc, src); err != nil {
			return Scenario{}, fmt.Errorf("scenario file %s: %w", path, err)
		}
	}
	return sc, nil
}

// ParseFile reads one scenario from data, the contents of the file name.
// A scenario whose pool is a certs: source cannot be made from the data
// alone: ParseFile rejects it (LoadFile loads it).
func ParseFile(data []byte, name string) (Scenario, error) {
	sc, certs, err := parseFile(data, name)
	if err == nil && certs != "" {
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

// fileReader reads one scenario file.
type fileReader struct {
	yamlnode.Reader
}

// topFields are a scenario file's fields, in the order docs list them.
var topFields = []string{"name", "description", "default", "pool", "stores", "churn", "lookup", "handshake", "ops", "duration"}

// parseFile reads a scenario and the certs: path of its pool ("" for a
// generated pool).
func parseFile(data []byte, name string) (Scenario, string, error) {
	var sc Scenario
	doc, err := yamlnode.Parse(data, name, "a scenario (name, pool, churn, ops)")
	if err != nil {
		return sc, "", &FileError{File: name, Err: err}
	}
	r := &fileReader{Reader: yamlnode.Reader{Name: name}}
	if !r.Mapping(doc, "scenario", "the scenario's fields (name, pool, churn, ops)") {
		return sc, "", &FileError{File: name, Err: r.Err()}
	}
	var (
		certs            string
		nodes            = map[string]*yaml.Node{}
		lookupN, handN   *yaml.Node
		poolN, durationN *yaml.Node
	)
	r.Fields(doc, "", func(key string, k, v *yaml.Node) {
		nodes[key] = k
		switch key {
		case "name":
			if s, ok := r.String(v, key); ok {
				if !scenarioName.MatchString(s) {
					r.Errorf(v, key, "%q: want 1 to 64 lower-case letters, digits, '-' or '.', starting with a letter or digit (it goes into benchmark names)", s)
				}
				sc.Name = s
			}
		case "description":
			if s, ok := r.String(v, key); ok {
				sc.Description = strings.Join(strings.Fields(s), " ")
			}
		case "default":
			sc.Default, _ = r.Bool(v, key)
		case "pool":
			poolN = v
			certs = r.pool(v, &sc.Pool)
		case "stores":
			if st, ok := r.Strings(v, key); ok {
				for i, s := range st {
					if slices.Index(st, s) != i {
						r.Errorf(v.Content[i], fmt.Sprintf("stores[%d]", i), "%q named twice", s)
					}
				}
				sc.Stores = st
			}
		case "churn":
			r.churn(v, &sc)
		case "lookup":
			lookupN = v
			sc.Mix = r.mix(v)
		case "handshake":
			handN = v
			sc.Handshake = r.handshake(v)
		case "ops":
			sc.Ops, _ = r.Int(v, key, "ops per sample", 1, 1<<30)
		case "duration":
			durationN = v
			sc.Duration = r.duration(v, key)
		default:
			r.Errorf(k, key, "unknown field (known: %s)", strings.Join(topFields, ", "))
		}
	})
	// What must be there, and what only some kinds take.
	for _, f := range []string{"name", "pool", "churn"} {
		if nodes[f] == nil && len(r.Errs) == 0 {
			r.Errorf(doc, f, "missing (a scenario needs name, pool and churn)")
		}
	}
	if nodes["ops"] == nil && sc.Kind != Sequence && nodes["churn"] != nil && len(r.Errs) == 0 {
		r.Errorf(doc, "ops", "missing: the number of ops in one sample, fixed so that B/op and allocs/op compare run to run")
	}
	if sc.Kind == Sequence && sc.Ops == 0 {
		sc.Ops = len(sc.Steps)
	}
	lookups := sc.Kind == Lookup || sc.Kind == Handshake || sc.Kind == HandshakeUnderChurn
	if lookupN != nil && !lookups && sc.Kind != "" {
		r.Errorf(lookupN, "lookup", "only lookup, handshake and handshake-under-churn scenarios look up names (churn.kind is %s)", sc.Kind)
	}
	if handN != nil && sc.Kind != Handshake && sc.Kind != "" {
		r.Errorf(handN, "handshake", "only handshake scenarios take handshake settings (churn.kind is %s)", sc.Kind)
	}
	if durationN != nil && sc.Kind != Handshake && sc.Kind != HandshakeUnderChurn && sc.Kind != "" {
		r.Errorf(durationN, "duration", "only handshake and handshake-under-churn scenarios are bounded in time (churn.kind is %s); the others run ops", sc.Kind)
	}
	if (sc.Kind == Handshake || sc.Kind == HandshakeUnderChurn) && durationN == nil && len(r.Errs) == 0 {
		r.Errorf(doc, "duration", "missing: a %s scenario's samples are bounded in time (e.g. duration: 2s)", sc.Kind)
	}
	if sc.Kind == Handshake && len(sc.Stores) == 0 && nodes["stores"] == nil && len(r.Errs) == 0 {
		r.Errorf(doc, "stores", "missing: a handshake scenario needs a named store (misses are served its configured default)")
	}
	if certs != "" && sc.Kind == Handshake && poolN != nil {
		r.Errorf(poolN, "pool.certs", "handshake scenarios verify chains against the generated issuer and cannot run on loaded certificates")
	}
	if sc.Description == "" && sc.Name != "" {
		sc.Description = "scenario file " + sc.Name
	}
	if err := r.Err(); err != nil {
		return Scenario{}, "", &FileError{File: name, Err: err}
	}
	return sc, certs, nil
}

// poolFields are the fields of pool.
var poolFields = []string{"seed", "count", "key", "max_sans", "wildcard_every", "ip_every", "domain", "certs"}

// pool reads the pool mapping into spec and returns its certs: path.
func (r *fileReader) pool(n *yaml.Node, spec *certgen.PoolSpec) (certs string) {
	if !r.Mapping(n, "pool", "the pool's fields ("+strings.Join(poolFields, ", ")+")") {
		return ""
	}
	var generated []*yaml.Node
	var certsN *yaml.Node
	r.Fields(n, "pool.", func(key string, k, v *yaml.Node) {
		field := "pool." + key
		if key != "certs" {
			generated = append(generated, k)
		}
		switch key {
		case "seed":
			s, _ := r.Int(v, field, "a seed", 0, 1<<31)
			spec.Seed = uint64(s)
		case "count":
			spec.Count, _ = r.Int(v, field, "certificates", 1, 1_000_000)
		case "key":
			s, _ := r.String(v, field)
			switch certgen.KeyType(s) {
			case certgen.P256, certgen.RSA2048, certgen.Mixed:
				spec.Key = certgen.KeyType(s)
			default:
				if s != "" {
					r.Errorf(v, field, "%q: want %s, %s or %s (3 P-256 to 1 RSA-2048)", s, certgen.P256, certgen.RSA2048, certgen.Mixed)
				}
			}
		case "max_sans":
			spec.MaxSANs, _ = r.Int(v, field, "DNS names", 1, 100)
		case "wildcard_every":
			if w, ok := r.Int(v, field, "certificates (0: no wildcards)", 0, 1_000_000); ok {
				spec.WildcardEvery = w
				if w == 0 {
					spec.WildcardEvery = -1
				}
			}
		case "ip_every":
			spec.IPEvery, _ = r.Int(v, field, "certificates (0: no IP SANs)", 0, 1_000_000)
		case "domain":
			if s, ok := r.String(v, field); ok {
				if strings.ContainsAny(s, " /*") || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") {
					r.Errorf(v, field, "%q: want a domain name such as example.test", s)
				}
				spec.Domain = strings.ToLower(s)
			}
		case "certs":
			certsN = v
			certs, _ = r.String(v, field)
		default:
			r.Errorf(k, field, "unknown field (known: %s)", strings.Join(poolFields, ", "))
		}
	})
	switch {
	case certsN != nil && len(generated) > 0:
		r.Errorf(generated[0], "pool."+generated[0].Value, "pool.certs replaces the generated pool: leave out %s", generated[0].Value)
	case certsN == nil && spec.Count == 0 && len(r.Errs) == 0:
		r.Errorf(n, "pool.count", "missing: the number of certificates (or pool.certs, a certificate source)")
	}
	return certs
}

// churnFields are the fields of churn.
var churnFields = []string{"kind", "window", "renew", "steps", "spread"}

// churn reads the churn mapping into sc.
func (r *fileReader) churn(n *yaml.Node, sc *Scenario) {
	if !r.Mapping(n, "churn", "the churn's fields ("+strings.Join(churnFields, ", ")+")") {
		return
	}
	var kindN *yaml.Node
	set := map[string]*yaml.Node{}
	r.Fields(n, "churn.", func(key string, k, v *yaml.Node) {
		field := "churn." + key
		set[key] = k
		switch key {
		case "kind":
			kindN = v
			s, _ := r.String(v, field)
			if i := slices.Index(fileKinds, Kind(s)); i >= 0 {
				sc.Kind = fileKinds[i]
			} else if s != "" {
				var names []string
				for _, k := range fileKinds {
					names = append(names, string(k))
				}
				r.Errorf(v, field, "%q: want one of %s", s, strings.Join(names, ", "))
			}
		case "window":
			sc.Window, _ = r.Int(v, field, "certificates", 1, 1_000_000)
		case "renew":
			sc.Renew, _ = r.Int(v, field, "certificates renewed per refresh", 1, 1_000_000)
		case "steps":
			sc.Steps = r.steps(v, field)
		case "spread":
			sc.Steps = r.spread(v, field)
		default:
			r.Errorf(k, field, "unknown field (known: %s)", strings.Join(churnFields, ", "))
		}
	})
	if kindN == nil {
		if len(r.Errs) == 0 {
			r.Errorf(n, "churn.kind", "missing: what each refresh does (rotate, renew, noop, startup, sequence, lookup, handshake, handshake-under-churn)")
		}
		return
	}
	// Which fields each kind takes.
	takes := map[Kind][]string{Rotate: {"window"}, Renew: {"renew"}, Sequence: {"steps", "spread"}, HandshakeUnderChurn: {}}
	for key, k := range set {
		if key == "kind" || slices.Contains(takes[sc.Kind], key) {
			continue
		}
		if sc.Kind != "" {
			r.Errorf(k, "churn."+key, "a %s scenario does not take %s", sc.Kind, key)
		}
	}
	switch {
	case sc.Kind == Rotate && set["window"] == nil:
		r.Errorf(kindN, "churn.window", "missing: the number of certificates in each configuration of a rotate scenario")
	case sc.Kind == Sequence && set["steps"] == nil && set["spread"] == nil:
		r.Errorf(kindN, "churn.steps", "missing: a sequence needs steps or spread")
	case sc.Kind == Sequence && set["steps"] != nil && set["spread"] != nil:
		r.Errorf(set["spread"], "churn.spread", "give steps or spread, not both")
	case sc.Kind == Renew && sc.Renew == 0:
		sc.Renew = 1
	}
}

// steps reads a list of {renew: k, repeat: n} steps.
func (r *fileReader) steps(n *yaml.Node, field string) []int {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		r.Errorf(n, field, "want a list of steps such as {renew: 1, repeat: 9}, found %s", yamlnode.KindName(n))
		return nil
	}
	var out []int
	for i, e := range n.Content {
		e = yamlnode.Resolve(e)
		f := fmt.Sprintf("%s[%d]", field, i)
		if !r.Mapping(e, f, "renew and repeat") {
			continue
		}
		renew, repeat := -1, 1
		r.Fields(e, f+".", func(key string, k, v *yaml.Node) {
			switch key {
			case "renew":
				renew, _ = r.Int(v, f+".renew", "certificates renewed (0: a no-op refresh)", 0, 1_000_000)
			case "repeat":
				repeat, _ = r.Int(v, f+".repeat", "refreshes", 1, MaxSteps)
			default:
				r.Errorf(k, f+"."+key, "unknown field (known: renew, repeat)")
			}
		})
		if renew < 0 {
			r.Errorf(e, f+".renew", "missing: the certificates renewed in this refresh (0: a no-op refresh)")
			continue
		}
		if len(out)+repeat > MaxSteps {
			r.Errorf(e, f+".repeat", "the steps add up to more than %d refreshes", MaxSteps)
			return nil
		}
		for range repeat {
			out = append(out, renew)
		}
	}
	return out
}

// spread reads {renewals: R, refreshes: F}: F refreshes, R renewals
// spread over them as evenly as whole numbers allow (refresh j renews
// floor((j+1)R/F) - floor(jR/F) certificates).
func (r *fileReader) spread(n *yaml.Node, field string) []int {
	if !r.Mapping(n, field, "renewals and refreshes") {
		return nil
	}
	renewals, refreshes := -1, 0
	r.Fields(n, field+".", func(key string, k, v *yaml.Node) {
		switch key {
		case "renewals":
			renewals, _ = r.Int(v, field+".renewals", "certificates renewed in all", 0, 1<<30)
		case "refreshes":
			refreshes, _ = r.Int(v, field+".refreshes", "refreshes", 1, MaxSteps)
		default:
			r.Errorf(k, field+"."+key, "unknown field (known: renewals, refreshes)")
		}
	})
	if renewals < 0 || refreshes == 0 {
		if len(r.Errs) == 0 {
			r.Errorf(n, field, "want both renewals and refreshes, e.g. {renewals: 150, refreshes: 1440}")
		}
		return nil
	}
	out := make([]int, refreshes)
	for j := range out {
		out[j] = (j+1)*renewals/refreshes - j*renewals/refreshes
	}
	return out
}

// mix reads the lookup mix.
func (r *fileReader) mix(n *yaml.Node) LookupMix {
	if !r.Mapping(n, "lookup", "exact, wildcard and miss percentages") {
		return LookupMix{}
	}
	var m LookupMix
	r.Fields(n, "lookup.", func(key string, k, v *yaml.Node) {
		field := "lookup." + key
		var p *int
		switch key {
		case "exact":
			p = &m.Exact
		case "wildcard":
			p = &m.Wildcard
		case "miss":
			p = &m.Miss
		default:
			r.Errorf(k, field, "unknown field (known: exact, wildcard, miss)")
			return
		}
		*p, _ = r.Int(v, field, "percent", 0, 100)
	})
	if sum := m.Exact + m.Wildcard + m.Miss; sum != 100 && len(r.Errs) == 0 {
		r.Errorf(n, "lookup", "exact %d + wildcard %d + miss %d = %d: the shares are percentages and add up to 100", m.Exact, m.Wildcard, m.Miss, sum)
	} else if m.Exact == 0 && sum == 100 {
		r.Errorf(n, "lookup.exact", "0: at least one exact name in a hundred lookups is needed")
	}
	return m
}

// handshake reads the handshake settings.
func (r *fileReader) handshake(n *yaml.Node) HandshakeSpec {
	var h HandshakeSpec
	if !r.Mapping(n, "handshake", "tls12_share, resume_share, clients, churn, refresh_every") {
		return h
	}
	share := func(v *yaml.Node, field string) float64 {
		x, ok := r.Number(v, field)
		if ok && (x < 0 || x > 1) {
			r.Errorf(v, field, "%s: want a fraction from 0 to 1", v.Value)
		}
		return x
	}
	r.Fields(n, "handshake.", func(key string, k, v *yaml.Node) {
		field := "handshake." + key
		switch key {
		case "tls12_share":
			h.TLS12Share = share(v, field)
		case "resume_share":
			h.ResumeShare = share(v, field)
		case "clients":
			h.Clients, _ = r.Int(v, field, "clients (0: GOMAXPROCS)", 0, 4096)
		case "churn":
			h.Churn, _ = r.Bool(v, field)
		case "refresh_every":
			h.RefreshEvery = r.duration(v, field)
		default:
			r.Errorf(k, field, "unknown field (known: tls12_share, resume_share, clients, churn, refresh_every)")
		}
	})
	return h
}

// duration reads a Go duration such as 2s or 100ms, positive and at most
// an hour.
func (r *fileReader) duration(v *yaml.Node, field string) time.Duration {
	s, ok := r.String(v, field)
	if !ok {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > time.Hour {
		r.Errorf(v, field, "%q: want a duration from 1ns to 1h, such as 2s or 100ms", s)
		return 0
	}
	return d
}
