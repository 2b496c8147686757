package rendezvous_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/certbench/certbench/internal/rendezvous"
)

// arrive runs one Wait per party concurrently and returns their errors.
func arrive(t *testing.T, dirs []*rendezvous.Dir, labels []string) []error {
	t.Helper()
	errs := make([]error, len(dirs))
	var wg sync.WaitGroup
	for i := range dirs {
		wg.Go(func() { errs[i] = dirs[i].Wait(context.Background(), labels[i]) })
	}
	wg.Wait()
	return errs
}

func open(t *testing.T, dir string, parties, n int, timeout time.Duration) []*rendezvous.Dir {
	t.Helper()
	var dirs []*rendezvous.Dir
	for range n {
		d, err := rendezvous.Open(dir, parties, timeout)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	return dirs
}

func TestPartiesMeetAtEveryPoint(t *testing.T) {
	dir := t.TempDir()
	dirs := open(t, dir, 3, 3, 0)
	for p := 1; p <= 5; p++ {
		label := fmt.Sprintf("rotate-10-of-100/optimized/%d", p)
		for i, err := range arrive(t, dirs, []string{label, label, label}) {
			if err != nil {
				t.Fatalf("point %d, party %d: %v", p, i, err)
			}
		}
		for i, d := range dirs {
			if d.Point() != p {
				t.Errorf("party %d: Point() = %d after %d waits", i, d.Point(), p)
			}
		}
	}
	// Nothing but the hashes is written: no label in any file.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 5 {
		t.Errorf("%d files for 5 points", len(entries))
	}
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if strings.Contains(string(data), "rotate") {
			t.Errorf("%s holds the label: %q", e.Name(), data)
		}
	}
}

func TestNoPartyGoesOnAlone(t *testing.T) {
	dirs := open(t, t.TempDir(), 2, 2, 0)
	passed := make(chan error, 1)
	go func() { passed <- dirs[0].Wait(context.Background(), "x") }()
	select {
	case err := <-passed:
		t.Fatalf("the first party went on before the second arrived (err %v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	if err := dirs[1].Wait(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	if err := <-passed; err != nil {
		t.Fatal(err)
	}
}

func TestDifferentLabelsFailBothParties(t *testing.T) {
	dirs := open(t, t.TempDir(), 2, 2, 0)
	for i, err := range arrive(t, dirs, []string{"rotate-10-of-100/optimized/1", "lookup-1000/optimized/1"}) {
		if !errors.Is(err, rendezvous.ErrMismatch) {
			t.Errorf("party %d: err = %v, want ErrMismatch", i, err)
		}
	}
}

func TestMorePartiesThanToldFail(t *testing.T) {
	dir := t.TempDir()
	dirs := open(t, dir, 2, 2, 0)
	// A third process arrived first: whoever completes the point sees
	// three records.
	extra := open(t, dir, 3, 1, 50*time.Millisecond)[0]
	extra.Wait(context.Background(), "x") // times out alone; its record stays
	errs := arrive(t, dirs, []string{"x", "x"})
	failed := 0
	for _, err := range errs {
		if errors.Is(err, rendezvous.ErrMismatch) {
			failed++
		}
	}
	if failed == 0 {
		t.Errorf("three records at a point of two parties: errors %v", errs)
	}
}

func TestAbsentPartyTimesOut(t *testing.T) {
	d := open(t, t.TempDir(), 2, 1, 20*time.Millisecond)[0]
	err := d.Wait(context.Background(), "x")
	if err == nil || !strings.Contains(err.Error(), "1 of 2 parties arrived") {
		t.Fatalf("err = %v, want a timeout naming 1 of 2 parties", err)
	}
}

func TestCancelledWaitReturns(t *testing.T) {
	d := open(t, t.TempDir(), 2, 1, time.Hour)[0]
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	if err := d.Wait(ctx, "x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestOpenErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		parties    int
		want       string
	}{
		{"missing", filepath.Join(t.TempDir(), "nope"), 2, "no such file"},
		{"file", file, 2, "not a directory"},
		{"no parties", t.TempDir(), 0, "want at least 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rendezvous.Open(tc.path, tc.parties, 0)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}
