package bench

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/google/pprof/profile"
)

// SampleLabel is the profiler label key each sample's store runs under,
// its value unique to the sample: the store's goroutines inherit it, which
// is how the goroutines metric counts them and nothing else.
const SampleLabel = "certbench-sample"

// sampleSeq numbers samples for SampleLabel.
var sampleSeq atomic.Uint64

// sampleLabel returns a new value of SampleLabel.
func sampleLabel() string { return strconv.FormatUint(sampleSeq.Add(1), 10) }

// underLabel runs f with the calling goroutine labelled SampleLabel=value;
// goroutines f starts keep the label. The goroutine's labels are cleared,
// not restored, when f returns.
func underLabel(value string, f func()) {
	pprof.Do(context.Background(), pprof.Labels(SampleLabel, value), func(context.Context) { f() })
}

// harnessFrames are the prefixes of the function names of the goroutines
// the harness itself starts under a sample's label (the refresher, the
// lookup goroutines and clients, the timers), which are not the store's.
var harnessFrames = []string{funcName(runChurn) + ".", funcName(runHandshakes) + ".", funcName(spread) + ".", funcName((*refresher).run)}

func funcName(f any) string {
	return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
}

// labelledGoroutines counts the goroutines labelled SampleLabel=value,
// from a goroutine profile, leaving out the harness's own (a stack with a
// frame of harnessFrames) and goroutines that are exiting (nothing but
// runtime frames left on their stack).
func labelledGoroutines(value string) (int, error) {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		return 0, fmt.Errorf("goroutine profile: %w", err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		return 0, fmt.Errorf("goroutine profile: %w", err)
	}
	n := 0
	for _, s := range p.Sample {
		if len(s.Value) == 0 || !s.HasLabel(SampleLabel, value) || !storeStack(s) {
			continue
		}
		n += int(s.Value[0])
	}
	return n, nil
}

// storeStack reports whether a goroutine's stack is one the store
// started: not the harness's and not an exiting goroutine's.
func storeStack(s *profile.Sample) bool {
	own := false
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function == nil {
				continue
			}
			name := line.Function.Name
			for _, h := range harnessFrames {
				if strings.HasPrefix(name, h) {
					return false
				}
			}
			if !strings.HasPrefix(name, "runtime.") {
				own = true
			}
		}
	}
	return own
}
