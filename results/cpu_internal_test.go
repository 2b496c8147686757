package results

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

func TestCPUInfoName(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"frequency appended", "processor\t: 0\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2596.122\n", "AMD EPYC @ 2596.122MHz"},
		{"name states GHz", "model name\t: Intel(R) Core(TM) i7-10700 CPU @ 2.90GHz\ncpu MHz\t\t: 2900.000\n", "Intel(R) Core(TM) i7-10700 CPU @ 2.90GHz"},
		{"no frequency", "model name\t: Some CPU\n", "Some CPU"},
		{"spaces kept after the separator", "model name\t:  Spaced CPU  \n", " Spaced CPU  "},
		{"capitalized keys", "Model Name\t: X1\nCPU MHz\t: 1000\n", "X1 @ 1000MHz"},
		{"last line wins", "model name\t: A\nmodel name\t: B\n", "B"},
		{"no model name", "processor\t: 0\ncpu MHz\t\t: 1000\nFeatures\t: fp asimd\n", ""},
		{"no separator", "model name:X\n", ""},
	} {
		if got := cpuinfoName([]byte(tc.text)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// cpuProbeEnv makes the test binary run only BenchmarkCPUNameProbe, for
// TestCPUNameAsTesting to read the "cpu:" line the testing package writes.
const cpuProbeEnv = "CERTBENCH_CPU_PROBE"

func BenchmarkCPUNameProbe(b *testing.B) {
	if os.Getenv(cpuProbeEnv) == "" {
		b.Skip("run by TestCPUNameAsTesting")
	}
	for b.Loop() {
	}
}

// TestCPUNameAsTesting runs a benchmark of this test binary and checks
// that CPUName is what the testing package wrote on its "cpu:" line.
func TestCPUNameAsTesting(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkCPUNameProbe$", "-test.benchtime=1x")
	cmd.Env = append(os.Environ(), cpuProbeEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := regexp.MustCompile(`(?m)^cpu: (.*)$`).FindSubmatch(out)
	if m == nil {
		if got := CPUName(); got != "unknown" {
			t.Fatalf("the testing package wrote no cpu line; CPUName is %q, want unknown\n%s", got, out)
		}
		return
	}
	if got, want := CPUName(), strings.TrimSuffix(string(m[1]), "\r"); got != want {
		t.Errorf("CPUName %q, the testing package wrote %q", got, want)
	}
}
