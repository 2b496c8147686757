package bench

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/regressions"
	"github.com/certbench/certbench/scenarios"
	"github.com/certbench/certbench/stores/optimized"
)

// A store that panics or hangs while its heap profile is captured ends
// the capture with a *StoreFault, not the process.
func TestCaptureStoreFaults(t *testing.T) {
	scs, err := scenarios.ByName("rotate-10-of-100")
	if err != nil {
		t.Fatal(err)
	}
	sc := scs[0]
	w, err := sc.Build(3)
	if err != nil {
		t.Fatal(err)
	}

	_, err = guardedCapture(regressions.Panic(2, newOptimized), w, 3, time.Minute)
	var f *StoreFault
	if !errors.As(err, &f) || f.Hung() || f.Panic == nil || !strings.Contains(string(f.Stack), "faulty") {
		t.Fatalf("panicking store: err %v, want a panic *StoreFault with the store's stack", err)
	}
	if rate := runtime.MemProfileRate; rate == 1 {
		t.Error("MemProfileRate left at 1 after a panic")
	}

	release := make(chan struct{})
	_, err = guardedCapture(regressions.Hang(2, release, newOptimized), w, 3, 50*time.Millisecond)
	close(release) // let the abandoned capture finish before the next test
	if !errors.As(err, &f) || !f.Hung() || len(f.Stack) == 0 {
		t.Fatalf("hanging store: err %v, want a hang *StoreFault with stacks", err)
	}
	if _, err := guardedCapture(newOptimized, w, 3, time.Minute); err == nil || !strings.Contains(err.Error(), "new process") {
		t.Errorf("a capture after a hang: err %v, want a refusal", err)
	}
	captureMu.Lock() // the abandoned capture ends once released
	captureMu.Unlock()
	captureHung.Store(false)
}

func newOptimized() certstore.Store { return optimized.New() }
