package certgen

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// writePoolDir writes a pool as PEM files, 1,000 to a directory: even
// certificates as a .crt and a .key, odd ones as one combined .pem.
func writePoolDir(t testing.TB, dir string, p *Pool) {
	t.Helper()
	for i, f := range p.Certs {
		sub := filepath.Join(dir, fmt.Sprintf("batch-%03d", i/1000))
		if i%1000 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		var err error
		if i%2 == 0 {
			err = os.WriteFile(filepath.Join(sub, fmt.Sprintf("c%06d.crt", i)), f.Pair.CertPEM, 0o644)
			if err == nil {
				err = os.WriteFile(filepath.Join(sub, fmt.Sprintf("c%06d.key", i)), f.Pair.KeyPEM, 0o644)
			}
		} else {
			err = os.WriteFile(filepath.Join(sub, fmt.Sprintf("c%06d.pem", i)), append(append([]byte{}, f.Pair.CertPEM...), f.Pair.KeyPEM...), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoadDirScale loads a directory of P-256 pairs from certgen's Pool:
// 1,000 by default, CERTBENCH_SOURCE_SCALE=10000 (or 100000) for the
// scale measurement. It logs the load time and the heap: the peak during
// the load and what the result retains. The 2 s target at 10,000 without
// the race detector is read from the log, not asserted (a wall time).
func TestLoadDirScale(t *testing.T) {
	n := 1000
	if s := os.Getenv("CERTBENCH_SOURCE_SCALE"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("CERTBENCH_SOURCE_SCALE=%q", s)
		}
		n = v
	}
	if testing.Short() {
		n = min(n, 200)
	}
	pool, err := CachedPool(PoolSpec{Seed: 5, Count: n})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writePoolDir(t, dir, pool)
	pool = nil
	runtime.GC()
	base := heapBytes()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if h := heapBytes(); h > peak.Load() {
					peak.Store(h)
				}
			}
		}
	}()
	start := time.Now()
	src, err := Load(dir, SourceOptions{Strict: true})
	elapsed := time.Since(start)
	close(stop)
	<-sampled
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	retained := heapBytes() - min(base, heapBytes())
	if len(src.Certs) != n {
		t.Fatalf("%d certificates, want %d", len(src.Certs), n)
	}
	sh := src.Shape()
	if sh.Keys["p256"] != n || sh.Chains["2"] != n {
		t.Errorf("shape %v", sh)
	}
	peakOver := uint64(0)
	if p := peak.Load(); p > base {
		peakOver = p - base
	}
	t.Logf("%d pairs (%d files) loaded in %v on GOMAXPROCS=%d (race=%v); heap: result retains %.1f MiB, peak during load %.1f MiB over the start",
		n, n+n/2, elapsed.Round(time.Millisecond), runtime.GOMAXPROCS(0), raceEnabled, float64(retained)/(1<<20), float64(peakOver)/(1<<20))
	// The target (10,000 pairs under 2 s on 2 cores) is a measurement to
	// read from the log on a quiet machine, not an assertion: wall time on
	// a shared machine says little.
	if n >= 10000 && !raceEnabled && elapsed > 2*time.Second {
		t.Logf("over the 2 s target for %d pairs (machine load affects this)", n)
	}
	runtime.KeepAlive(src)
}

func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
