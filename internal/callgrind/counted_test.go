package callgrind

import (
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/cost"
)

// TestCounted checks what counted leaves out of a window: the scheduler's
// own instructions and its calls of the runtime's helpers, but not what
// callgrind charges to a call of the goroutine it resumes, nor the
// measured code's own calls of the same helpers.
func TestCounted(t *testing.T) {
	const dump = `events: Ir
fn=(1) main.work
1 10000
cfn=(2) runtime.lock2
calls=1 1
1 100
fn=(2)
1 300
fn=(3) runtime.schedule'runtime.goschedImpl
1 500
cfn=(2)
calls=1 1
1 200
cfn=(1)
calls=1 1
1 9000
fn=(4) runtime.mcall
1 20
cfn=(1)
calls=1 1
1 9000
`
	parts, err := cost.ReadCallgrind(strings.NewReader(dump))
	if err != nil {
		t.Fatal(err)
	}
	// 10,820 in all: the scheduler's 500 and its lock's 200, and mcall's
	// 20, are left out.
	if got, want := counted(parts[0]), int64(10820-500-200-20); len(got) != 1 || got[0] != want {
		t.Errorf("counted = %v, want [%d]", got, want)
	}
}
