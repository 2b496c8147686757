package conformance

// Shrinking a divergence to a minimal case, and printing it as a Go test.

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/certstore"
)

// maxShrinkChecks and maxShrinkTime bound one shrink (replays of a slow
// store's updates are slow).
const (
	maxShrinkChecks = 3000
	maxShrinkTime   = 2 * time.Minute
)

// shrinker holds what a shrink needs: test replays a candidate case and
// reports whether it still shows what is being shrunk.
type shrinker struct {
	test     func(c Case) bool
	checks   int
	deadline time.Time
	best     Case
}

// try keeps c as the best case if it still shows the difference.
func (sh *shrinker) try(c Case) bool {
	if sh.checks >= maxShrinkChecks || time.Now().After(sh.deadline) {
		return false
	}
	sh.checks++
	if !sh.test(c) {
		return false
	}
	sh.best = c
	return true
}

// countCerts is the number of certificates over all of c's configurations,
// but for the defaults Compare configures (fillerDefault).
func countCerts(c *Case) int {
	n := 0
	for _, cfg := range c.Configs {
		n += len(cfg.Certs)
		for _, d := range cfg.Stores {
			if d != nil && !slices.Equal(d.DNSNames, []string{fillerDefault}) {
				n++
			}
		}
	}
	return n
}

// shrinkCase returns a minimal version of start under test: greedy passes
// that drop configurations, certificates, defaults, stores and names, and
// shorten names, keeping each change under which test still holds, until a
// pass changes nothing. test must hold for start. The note says whether the
// budget stopped it.
func shrinkCase(start Case, test func(Case) bool) (best Case, note string) {
	sh := &shrinker{test: test, best: start.clone(), deadline: time.Now().Add(maxShrinkTime)}
	for progress := true; progress && sh.checks < maxShrinkChecks; {
		progress = false
		for _, pass := range []func(*shrinker) bool{
			(*shrinker).dropConfigs, (*shrinker).dropCerts, (*shrinker).dropStores,
			(*shrinker).dropNames, (*shrinker).shortenLabels, (*shrinker).simplify,
		} {
			if pass(sh) {
				progress = true
			}
		}
	}
	if sh.checks >= maxShrinkChecks || time.Now().After(sh.deadline) {
		note = fmt.Sprintf("shrinking stopped after %d replays", sh.checks)
	}
	return sh.best, note
}

// shrinkDivergence shrinks d while the store still diverges from
// certstore.Match in a way no known deviation explains.
func shrinkDivergence(newStore certstore.Factory, lc *leafCache, d *Divergence, known []Deviation) *Divergence {
	orig := countCerts(&d.Case)
	var last *Divergence
	test := func(c Case) bool {
		for k := range c.Configs {
			if !c.Configs[k].valid() {
				return false
			}
		}
		got, err := c.check(newStore, lc)
		if err != nil || got == nil || explain(known, got) != "" {
			return false
		}
		last = got
		return true
	}
	if !test(d.Case.clone()) {
		out := *d
		out.Original = orig
		out.Note = "the divergence does not reproduce on a new store with this case alone (it may depend on earlier lookups or on timing); not shrunk"
		return &out
	}
	// Every case test accepts becomes the best one, so last is the best's.
	_, note := shrinkCase(last.Case, test)
	out := *last
	out.Seed, out.Iteration, out.Original, out.Shrunk, out.Note = d.Seed, d.Iteration, orig, true, note
	return &out
}

// each tries every candidate edit of the best case that edit makes; edit
// returns false when index i is past the last candidate, and may leave the
// case unchanged to skip index i.
func (sh *shrinker) each(edit func(c *Case, i int) bool) bool {
	changed := false
	for i := 0; ; {
		c := sh.best.clone()
		if !edit(&c, i) {
			return changed
		}
		if !caseEqual(&c, &sh.best) && sh.try(c) {
			changed = true // retry the same index on the new best case
			continue
		}
		i++
	}
}

func (sh *shrinker) dropConfigs() bool {
	changed := false
	// Only the held configuration.
	if c := sh.best; len(c.Configs) > 1 {
		one := Case{Configs: []CaseConfig{c.Configs[c.Held].clone()}, Store: c.Store, SNI: c.SNI}
		changed = sh.try(one)
	}
	return sh.each(func(c *Case, i int) bool {
		if i >= len(c.Configs) {
			return false
		}
		if len(c.Configs) == 1 || i == c.Held {
			return true // left unchanged, so skipped
		}
		c.Configs = slices.Delete(c.Configs, i, i+1)
		if i < c.Held {
			c.Held--
		}
		return true
	}) || changed
}

// certRef addresses one certificate of a case: configuration k, index i,
// or the default of a store when store is set.
type certRef struct {
	k     int
	i     int
	store string
}

// refs lists every certificate of c.
func refs(c *Case) []certRef {
	var rs []certRef
	for k, cfg := range c.Configs {
		for i := range cfg.Certs {
			rs = append(rs, certRef{k: k, i: i})
		}
		for _, st := range cfg.storeNames() {
			if cfg.Stores[st] != nil {
				rs = append(rs, certRef{k: k, store: st})
			}
		}
	}
	return rs
}

func (r certRef) get(c *Case) *CaseCert {
	if r.store != "" {
		return c.Configs[r.k].Stores[r.store]
	}
	return &c.Configs[r.k].Certs[r.i]
}

func (sh *shrinker) dropCerts() bool {
	return sh.each(func(c *Case, i int) bool {
		rs := refs(c)
		if i >= len(rs) {
			return false
		}
		r := rs[i]
		if r.store != "" {
			c.Configs[r.k].Stores[r.store] = nil
		} else {
			c.Configs[r.k].Certs = slices.Delete(c.Configs[r.k].Certs, r.i, r.i+1)
		}
		return true
	})
}

// dropStores removes store memberships, then whole declared stores (with
// the references to them), then a certificate's explicit store list.
func (sh *shrinker) dropStores() bool {
	a := sh.each(func(c *Case, i int) bool {
		type ref struct{ k, i, j int }
		var rs []ref
		for k, cfg := range c.Configs {
			for ci, cc := range cfg.Certs {
				for j := range cc.Stores {
					rs = append(rs, ref{k, ci, j})
				}
			}
		}
		if i >= len(rs) {
			return false
		}
		r := rs[i]
		cc := &c.Configs[r.k].Certs[r.i]
		cc.Stores = slices.Delete(cc.Stores, r.j, r.j+1)
		if len(cc.Stores) == 0 {
			cc.Stores = nil
		}
		return true
	})
	b := sh.each(func(c *Case, i int) bool {
		type ref struct {
			k  int
			st string
		}
		var rs []ref
		for k, cfg := range c.Configs {
			for _, st := range cfg.storeNames() {
				if st != c.Store {
					rs = append(rs, ref{k, st})
				}
			}
		}
		if i >= len(rs) {
			return false
		}
		r := rs[i]
		cfg := &c.Configs[r.k]
		delete(cfg.Stores, r.st)
		if len(cfg.Stores) == 0 {
			cfg.Stores = nil
		}
		if r.st != certstore.DefaultStore {
			for ci := range cfg.Certs {
				cfg.Certs[ci].Stores = slices.DeleteFunc(cfg.Certs[ci].Stores, func(s string) bool { return s == r.st })
			}
		}
		return true
	})
	return a || b
}

// dropNames removes one name (common name, DNS name or IP) at a time.
func (sh *shrinker) dropNames() bool {
	return sh.each(func(c *Case, i int) bool {
		for _, r := range refs(c) {
			cc := r.get(c)
			n := 1 + len(cc.DNSNames) + len(cc.IPs)
			if i >= n {
				i -= n
				continue
			}
			switch {
			case i == 0:
				cc.CommonName = ""
			case i <= len(cc.DNSNames):
				cc.DNSNames = slices.Delete(cc.DNSNames, i-1, i)
			default:
				j := i - 1 - len(cc.DNSNames)
				cc.IPs = slices.Delete(cc.IPs, j, j+1)
			}
			if len(cc.DNSNames) == 0 {
				cc.DNSNames = nil
			}
			if len(cc.IPs) == 0 {
				cc.IPs = nil
			}
			return true
		}
		return false
	})
}

// rename applies f to every host name of c (common names, DNS names and
// the SNI; IP addresses are left alone).
func rename(c *Case, f func(string) string) {
	isIP := func(s string) bool { _, err := netip.ParseAddr(s); return err == nil }
	for _, r := range refs(c) {
		cc := r.get(c)
		if cc.CommonName != "" && !isIP(cc.CommonName) {
			cc.CommonName = f(cc.CommonName)
		}
		dns := cc.DNSNames[:0]
		for _, n := range cc.DNSNames {
			if n = f(n); n != "" {
				dns = append(dns, n)
			}
		}
		cc.DNSNames = dns
		if len(dns) == 0 {
			cc.DNSNames = nil
		}
	}
	if !isIP(c.SNI) {
		c.SNI = f(c.SNI)
	}
}

// labelsOf returns the distinct labels of c's host names, longest first.
func labelsOf(c *Case) []string {
	seen := map[string]bool{}
	cp := c.clone()
	rename(&cp, func(n string) string {
		for _, l := range strings.Split(n, ".") {
			seen[l] = true
		}
		return n
	})
	var ls []string
	for l := range seen {
		if l != "" && l != "*" {
			ls = append(ls, l)
		}
	}
	slices.SortFunc(ls, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return ls
}

// replaceLabel tries the best case with label l replaced by to everywhere
// ("" deletes it).
func (sh *shrinker) replaceLabel(l, to string) bool {
	c := sh.best.clone()
	rename(&c, func(n string) string {
		var out []string
		for _, p := range strings.Split(n, ".") {
			switch {
			case p != l:
				out = append(out, p)
			case to != "":
				out = append(out, to)
			}
		}
		return strings.Join(out, ".")
	})
	return sh.try(c)
}

// shortenLabels deletes a label everywhere it appears, or replaces it
// everywhere by a one-letter label.
func (sh *shrinker) shortenLabels() bool {
	changed := false
	for _, l := range labelsOf(&sh.best) {
		if sh.replaceLabel(l, "") {
			changed = true
			continue
		}
		if len(l) == 1 {
			continue
		}
		used := labelsOf(&sh.best)
		for _, short := range []string{"a", "b", "c", "d", "e", "f"} {
			if slices.Contains(used, short) || strings.EqualFold(short, l) {
				continue
			}
			// Keep the case of the label's first letter.
			if l[0] >= 'A' && l[0] <= 'Z' {
				short = strings.ToUpper(short)
			}
			changed = sh.replaceLabel(l, short) || changed
			break
		}
	}
	return changed
}

// simplify lowercases names, writes IP addresses canonically, drops
// variants and the SNI's case, where the store still diverges without.
func (sh *shrinker) simplify() bool {
	changed := false
	canonIP := func(s string) string {
		if a, err := netip.ParseAddr(s); err == nil {
			return a.Unmap().String()
		}
		return s
	}
	for _, e := range []func(c *Case){
		func(c *Case) { rename(c, strings.ToLower) },
		func(c *Case) { c.SNI = strings.ToLower(c.SNI) },
		func(c *Case) { c.SNI = canonIP(c.SNI) },
	} {
		c := sh.best.clone()
		e(&c)
		if !caseEqual(&c, &sh.best) && sh.try(c) {
			changed = true
		}
	}

	changed = sh.each(func(c *Case, i int) bool {
		rs := refs(c)
		if i >= len(rs) {
			return false
		}
		cc := rs[i].get(c)
		was := cc.clone()
		for j, ip := range cc.IPs {
			cc.IPs[j] = canonIP(ip)
		}
		cc.CommonName = canonIP(cc.CommonName)
		if slices.Equal(was.IPs, cc.IPs) && was.CommonName == cc.CommonName {
			cc.Variant = 0
		}
		return true
	}) || changed
	return changed
}

// caseEqual reports whether a and b print the same.
func caseEqual(a, b *Case) bool { return a.GoString() == b.GoString() }

// GoString writes the case as a Go composite literal of package
// conformance's types.
func (c Case) GoString() string {
	var b strings.Builder
	b.WriteString("conformance.Case{\n\tConfigs: []conformance.CaseConfig{\n")
	for _, cfg := range c.Configs {
		if len(cfg.Certs) == 0 && cfg.Stores == nil {
			b.WriteString("\t\t{},\n")
			continue
		}
		b.WriteString("\t\t{\n")
		if len(cfg.Certs) > 0 {
			b.WriteString("\t\t\tCerts: []conformance.CaseCert{\n")
			for _, cc := range cfg.Certs {
				fmt.Fprintf(&b, "\t\t\t\t%s,\n", cc.literal())
			}
			b.WriteString("\t\t\t},\n")
		}
		if cfg.Stores != nil {
			b.WriteString("\t\t\tStores: map[string]*conformance.CaseCert{")
			for i, st := range cfg.storeNames() {
				if i > 0 {
					b.WriteString(", ")
				}
				if d := cfg.Stores[st]; d != nil {
					fmt.Fprintf(&b, "%q: %s", st, d.literal())
				} else {
					fmt.Fprintf(&b, "%q: nil", st)
				}
			}
			b.WriteString("},\n")
		}
		b.WriteString("\t\t},\n")
	}
	b.WriteString("\t},\n")
	if c.Held != 0 {
		fmt.Fprintf(&b, "\tHeld: %d,\n", c.Held)
	}
	fmt.Fprintf(&b, "\tStore: %q,\n\tSNI:   %q,\n}", c.Store, c.SNI)
	return b.String()
}

// literal writes a CaseCert as a composite literal without its type.
func (c *CaseCert) literal() string {
	var fs []string
	if c.CommonName != "" {
		fs = append(fs, fmt.Sprintf("CommonName: %q", c.CommonName))
	}
	strs := func(name string, xs []string) {
		if len(xs) == 0 {
			return
		}
		q := make([]string, len(xs))
		for i, x := range xs {
			q[i] = fmt.Sprintf("%q", x)
		}
		fs = append(fs, fmt.Sprintf("%s: []string{%s}", name, strings.Join(q, ", ")))
	}
	strs("DNSNames", c.DNSNames)
	strs("IPs", c.IPs)
	strs("Stores", c.Stores)
	if c.Variant != 0 {
		fs = append(fs, fmt.Sprintf("Variant: %d", c.Variant))
	}
	return "{" + strings.Join(fs, ", ") + "}"
}

// Report describes the divergence and prints it as a ready-to-paste Go test
// case, with the seed and iteration that found it.
func (d *Divergence) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "differential: %s\n", d.Error())
	if d.Known != "" {
		fmt.Fprintf(&b, "explained by the known deviation %q\n", d.Known)
	}
	if d.Shrunk {
		fmt.Fprintf(&b, "shrunk from %d to %d certificates; ", d.Original, countCerts(&d.Case))
	}
	if d.Note != "" {
		fmt.Fprintf(&b, "%s; ", d.Note)
	}
	fmt.Fprintf(&b, "found by seed %#x, iteration %d (reproduce: -conformance.diff.seed=%d -conformance.diff.iterations=%d)\n", d.Seed, d.Iteration, d.Seed, d.Iteration+1)
	if len(d.Case.Configs) == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, "want: %s\ngot:  %s (via %s)\n", d.Want.describe(&d.Case), d.Got.describe(&d.Case), d.Via)
	b.WriteString("\nAs a Go test:\n\n")
	fmt.Fprintf(&b, "func TestDifferentialSeed%xIteration%d(t *testing.T) {\n", d.Seed, d.Iteration)
	fmt.Fprintf(&b, "\t// want %s; got %s\n", d.Want.describe(&d.Case), d.Got.describe(&d.Case))
	lit := strings.ReplaceAll(d.Case.GoString(), "\n", "\n\t")
	fmt.Fprintf(&b, "\tconformance.CheckCase(t, newStore, %s)\n}\n", lit)
	return b.String()
}
