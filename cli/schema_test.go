package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaDir holds the published JSON Schemas of the json outputs.
const schemaDir = "../docs/schema"

// compileSchema compiles docs/schema/NAME.schema.json.
func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join(schemaDir, name+".schema.json")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	id, _ := doc.(map[string]any)["$id"].(string)
	if id == "" {
		t.Fatalf("%s has no $id", path)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// validate checks out, a command's json output, against sch.
func validate(t *testing.T, sch *jsonschema.Schema, what string, out []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("%s: output is not JSON: %v\n%s", what, err, out)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s: output does not match its schema: %v", what, err)
	}
}

// runJSON runs certbench with args and returns its stdout, failing unless
// the exit code is one of codes.
func runJSON(t *testing.T, args []string, codes ...int) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(args, &stdout, &stderr)
	for _, c := range codes {
		if code == c {
			return stdout.Bytes()
		}
	}
	t.Fatalf("certbench %s: exit %d; stderr:\n%s", strings.Join(args, " "), code, stderr.String())
	return nil
}

func TestJSONOutputsMatchSchemas(t *testing.T) {
	for _, tc := range []struct {
		schema string
		args   []string
		codes  []int
	}{
		{"list", []string{"list", "--format", "json"}, []int{ExitOK}},
	} {
		what := strings.Join(tc.args, " ")
		validate(t, compileSchema(t, tc.schema), what, runJSON(t, tc.args, tc.codes...))
	}
}

// TestSchemasRejectDrift checks that the schemas are strict enough to
// catch an output that lost a key, gained one or changed a type.
func TestSchemasRejectDrift(t *testing.T) {
	out := runJSON(t, []string{"list", "--format", "json"}, ExitOK)
	sch := compileSchema(t, "list")
	for name, edit := range map[string]func(map[string]any){
		"missing key":   func(m map[string]any) { delete(m, "families") },
		"unknown key":   func(m map[string]any) { m["extra"] = true },
		"wrong type":    func(m map[string]any) { m["stores"].([]any)[0].(map[string]any)["name"] = 7 },
		"nested absent": func(m map[string]any) { delete(m["scenarios"].([]any)[0].(map[string]any), "ops") },
	} {
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err == nil {
			t.Errorf("%s: the list schema accepted the edited output", name)
		}
	}
}

func TestConformanceJSONMatchesSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the conformance suite in a process")
	}
	useTestMain(t)
	// A failing store, so that results carry output.
	args := []string{"conformance", "--stores", "test-storeblind,optimized", "--iterations", "3", "--seed", "9", "--format", "json"}
	validate(t, compileSchema(t, "conformance"), strings.Join(args, " "), runJSON(t, args, ExitRegression))
}

func TestConformanceAgainstJSONMatchesSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the comparison in a process")
	}
	useTestMain(t)
	sch := compileSchema(t, "conformance-against")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"conformance", "--stores", "optimized", "--against", "test-lasttie", "--iterations", "3", "--seed", "3", "--format", "json"}, ExitRegression},
		{[]string{"conformance", "--stores", "test-lasttie", "--against", "test-lasttie@declared", "--iterations", "2", "--format", "json"}, ExitOK},
	} {
		out := runJSON(t, tc.args, tc.code)
		validate(t, sch, strings.Join(tc.args, " "), out)
		if tc.code == ExitRegression && !bytes.Contains(out, []byte(`"summary": "Store.Certificate(`)) {
			t.Errorf("%s: no change in the output:\n%s", strings.Join(tc.args, " "), out)
		}
	}
}
