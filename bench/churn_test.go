package bench_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// gatedStore is the simple store whose lookups wait until its refresher
// has started the window's second refresh: by then one refresh of the
// window has completed, whatever the machine's load, so the window's
// refresh count is at least one by construction, not by timing.
type gatedStore struct {
	simpleStore
	ctx     context.Context // the lookups' wait ends with it too
	at      int64           // the Update (1-based) that opens the gate
	updates atomic.Int64
	open    chan struct{}
}

func newGated(ctx context.Context) *gatedStore {
	// The initial configuration and the warmup refreshes come before the
	// window: its second refresh is the Update after those and one more.
	return &gatedStore{ctx: ctx, at: 1 + bench.ChurnWarmup + 2, open: make(chan struct{})}
}

func (s *gatedStore) Update(cfg *certstore.Config) error {
	if s.updates.Add(1) == s.at {
		close(s.open)
	}
	return s.simpleStore.Update(cfg)
}

func (s *gatedStore) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	select {
	case <-s.open:
	case <-s.ctx.Done():
	}
	return s.simpleStore.Certificate(store, hello)
}

// TestHandshakeUnderChurn: the window ends by its duration, lookups and
// refreshes run in it together, and the sample reports both. The lookups
// wait for a refresh in the window (gatedStore) and the lookup count is
// out of reach in the window, so neither figure depends on the machine's
// load; the context turns a window that never ends, or a refresher that
// never runs in it, into a failure instead of a hang.
func TestHandshakeUnderChurn(t *testing.T) {
	sc := scenario(t, "handshake-under-churn")
	// The window ends at a goroutine's first check (every 64 lookups)
	// after both its 300 ms and the gate's opening: at most 300 ms of
	// lookups. 1<<30 would take seconds even at a nanosecond each, so
	// only the duration can end it.
	sc.Ops = 1 << 30
	sc.Pool.Count = 50
	sc.Duration = 300 * time.Millisecond
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := bench.MeasureContext(ctx, func() certstore.Store { return newGated(ctx) }, "simple", w)
	if err != nil {
		t.Fatal(err)
	}
	if s.Ops <= 0 || s.Ops >= sc.Ops {
		t.Errorf("%d lookups, want 1..%d: the duration ends the window", s.Ops, sc.Ops-1)
	}
	if s.NsPerOp <= 0 {
		t.Errorf("sec/op %v", s.NsPerOp)
	}
	got := map[string]float64{}
	for _, v := range s.Extra {
		got[v.Unit] = v.Value
	}
	for _, u := range []string{results.UnitP50, results.UnitP99, results.UnitP999} {
		if !(got[u] > 0) {
			t.Errorf("%s = %v, want > 0", u, got[u])
		}
	}
	if !(got[results.UnitP50] <= got[results.UnitP99] && got[results.UnitP99] <= got[results.UnitP999]) {
		t.Errorf("percentiles out of order: %v", got)
	}
	if !(got[results.UnitRefreshRate] > 0) {
		t.Errorf("refreshes/s = %v, want > 0: the lookups waited for a refresh of the window", got[results.UnitRefreshRate])
	}

	var buf bytes.Buffer
	wr := results.NewWriter(&buf)
	if err := wr.Write(s); err != nil {
		t.Fatal(err)
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if !strings.Contains(text, "Unit p99-ns better=lower") {
		t.Errorf("no direction for p99-ns in\n%s", text)
	}
	r := benchfmt.NewReader(&buf, "churn.txt")
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			// The reader tidies p999-ns into p999-sec.
			for _, u := range []string{"sec/op", "p999-sec", results.UnitRefreshRate} {
				if _, ok := res.Value(u); !ok {
					t.Errorf("result has no %s", u)
				}
			}
		}
	}
	if b := r.Units().GetBetter(results.UnitRefreshRate); b != 1 {
		t.Errorf("refreshes/s better = %d, want higher (1)", b)
	}
}

func TestSampleName(t *testing.T) {
	s := bench.Sample{Scenario: "renew-1-of-100", Store: "x", Name: "Sweep/family=renew-1/size=100/scenario=renew-1-of-100/store=x", Ops: 1}
	res := s.Result(nil, 1)
	if got := string(res.Name); got != s.Name {
		t.Errorf("name %q, want %q", got, s.Name)
	}
}
