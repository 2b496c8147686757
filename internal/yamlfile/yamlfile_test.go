package yamlfile

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

type inner struct {
	Renew  *int `yaml:"renew"`
	Repeat int  `yaml:"repeat"`
}

type doc struct {
	Name   string          `yaml:"name" check:"required"`
	Count  int             `yaml:"count"`
	Share  float64         `yaml:"share"`
	On     bool            `yaml:"on"`
	Every  time.Duration   `yaml:"every"`
	Names  []string        `yaml:"names"`
	Steps  []inner         `yaml:"steps"`
	Sub    *inner          `yaml:"sub"`
	Limits upper           `yaml:"limits"`
	Deep   [][][][]string  `yaml:"deep"`
	Others map[string]any  `yaml:",inline"`
	Skip   string          `yaml:"-"`
	byDoc  map[string]bool // unexported: not a field
}

// upper is a mapping of upper-case names to numbers, decoded by hand.
type upper map[string]int

func (u *upper) UnmarshalYAML(n *yaml.Node) error {
	var errs []error
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Value != strings.ToUpper(k.Value) {
			errs = append(errs, NodeErrorf(k, k.Value, "want upper case"))
		}
	}
	if errs != nil {
		return errors.Join(errs...)
	}
	m := map[string]int{}
	if err := n.Decode(&m); err != nil {
		return err
	}
	*u = m
	return nil
}

// Validate: count at most 10; a sub needs renew; share below 1.
func (d *doc) Validate() error {
	var errs []error
	if d.Count > 10 {
		errs = append(errs, Errorf("count", "want at most 10"))
	}
	if d.Sub != nil && d.Sub.Renew == nil {
		errs = append(errs, Errorf("sub.renew", "a sub renews"))
	}
	if d.Share >= 1 {
		errs = append(errs, KeyErrorf("share", "not with this name"))
	}
	for i, s := range d.Steps {
		if s.Repeat > 3 {
			errs = append(errs, Within("steps", Errorf("["+string(rune('0'+i))+"].repeat", "want at most 3")))
		}
	}
	return errors.Join(errs...)
}

func TestDecode(t *testing.T) {
	d := doc{Count: 7}
	err := Decode([]byte(`
name: a
share: 0.5
on: false
every: 2s
names: [x, y]
steps: [{renew: 0}, {renew: 1, repeat: 2}]
sub: &s {renew: 3}
limits: {A: 1}
other: [whatever, {is: here}]
`), "t.yaml", "a doc", &d)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "a" || d.Count != 7 || d.Every != 2*time.Second || len(d.Names) != 2 || *d.Steps[0].Renew != 0 || d.Steps[1].Repeat != 2 ||
		*d.Sub.Renew != 3 || d.Limits["A"] != 1 || d.Others["other"] == nil {
		t.Errorf("decoded %+v", d)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"empty", "", "t.yaml: empty configuration; want a doc"},
		{"list", "- a\n", `t.yaml:1:1: want a doc, found a list`},
		{"syntax", "name: a\nnames: [x,\ncount: 3\n", "t.yaml:"},
		{"missing", "count: 1\n", "t.yaml:1:1: name: missing (required: name)"},
		{"twice", "name: a\nname: b\n", "t.yaml:2:1: name: set twice (first at line 1, column 1)"},
		{"unknown in a struct", "name: a\nsub: {renew: 1, again: 2}\n", "t.yaml:2:17: sub.again: unknown field (known: renew, repeat)"},
		{"key not a scalar", "name: a\nsub: {[x]: 1}\n", "t.yaml:2:7: sub: want a field name, found a list"},
		{"bool", "name: a\non: yes\n", `t.yaml:2:5: on: want true or false, found "yes"`},
		{"fraction", "name: a\ncount: 2.5\n", `t.yaml:2:8: count: want a whole number, found "2.5"`},
		{"too big", "name: a\ncount: 99999999999999999999\n", `count: want a whole number, found "99999999999999999999"`},
		{"quoted number", "name: a\nshare: '0.5'\n", `t.yaml:2:8: share: want a number, found "0.5"`},
		{"empty string", "name: ''\n", `t.yaml:1:7: name: want a string, found ""`},
		{"null", "name: a\nsub:\n", "t.yaml:2:5: sub: want a mapping (renew, repeat), found nothing"},
		{"empty mapping", "name: a\nsub: {}\n", "t.yaml:2:6: sub: empty mapping"},
		{"empty list", "name: a\nnames: []\n", "t.yaml:2:8: names: empty list"},
		{"list of names", "name: a\nnames: x\n", `t.yaml:2:8: names: want a list of names, found "x"`},
		{"list item", "name: a\nsteps: [{renew: 1}, 3]\n", `t.yaml:2:21: steps[1]: want a mapping (renew, repeat), found "3"`},
		{"duration", "name: a\nevery: soon\n", `t.yaml:2:8: every: want a duration such as 2s or 100ms, found "soon"`},
		{"unmarshaler", "name: a\nlimits: {A: 1, b: 2}\n", "t.yaml:2:16: limits.b: want upper case"},
		{"validate value", "name: a\ncount: 11\n", "t.yaml:2:8: count: 11: want at most 10"},
		{"validate string value", "name: a\nsub: {renew: 1}\nsteps: [{renew: 1, repeat: 4}]\n", "t.yaml:3:28: steps[0].repeat: 4: want at most 3"},
		{"validate missing", "name: a\nsub: {repeat: 1}\n", "t.yaml:2:6: sub.renew: missing: a sub renews"},
		{"validate at key", "name: a\nshare: 1\n", "t.yaml:2:1: share: not with this name"},
		{"every error at once", "name: a\ncount: 11\non: maybe\nsub: {renew: x}\n", "t.yaml:2:8: count: 11: want at most 10\nt.yaml:3:5: on: want true or false"},
		{"aliases", "name: a\nx: &x [*x]\n", ""},
		{"alias", "name: &n a\nnames: [*n, *n]\nsub: &s {renew: x}\nsteps: [*s, *s]\n", "t.yaml:3:17: sub.renew: want a whole number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Decode([]byte(tc.doc), "t.yaml", "a doc", &doc{})
			if tc.want == "" {
				return // no panic, no hang
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant %q", err, tc.want)
			}
		})
	}
}

// After an error from the checks, Validate's errors about the same field,
// or about fields that are not there, are left out: they follow from it.
func TestDecodeLeavesOutConsequences(t *testing.T) {
	err := Decode([]byte("count: 2.5\nsub: {renew: x}\n"), "t.yaml", "a doc", &doc{})
	if err == nil {
		t.Fatal("no error")
	}
	for _, not := range []string{"missing", "sub.renew: missing"} {
		if strings.Contains(err.Error(), not) {
			t.Errorf("error %v: has %q", err, not)
		}
	}
	if n := len(Flatten(err)); n != 2 {
		t.Errorf("%d errors, want 2: %v", n, err)
	}
}

func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: a\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 6; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("deep: [*a5, *a5, *a5]\n")
	// Each anchor is checked once: one error, where the problem is.
	err := Decode([]byte(b.String()), "t.yaml", "a doc", &doc{})
	if err == nil || len(Flatten(err)) != 1 || !strings.Contains(err.Error(), "t.yaml:4:5: deep[0][0][0][0]: want a string, found a list") {
		t.Errorf("error %v", err)
	}
}

func TestReadFile(t *testing.T) {
	if _, err := ReadFile(t.TempDir(), "scenario file", 10); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
}
