package simrand

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

func TestSeedHalves(t *testing.T) {
	var zero [8]byte
	if [8]byte(Seed[:8]) == zero || [8]byte(Seed[8:]) == zero {
		t.Error("Seed has a zero half: the runtime would ignore it")
	}
}

// draws resets the calling goroutine's thread, then returns the
// iteration order of a map made afterwards (its seed and its iteration's
// starting point come from the thread's stream) and two numbers drawn.
func draws() ([]int, [2]uint64, bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if !Reset() {
		return nil, [2]uint64{}, false
	}
	m := make(map[int]bool)
	for i := range 64 {
		m[i] = true
	}
	var order []int
	for k := range m {
		order = append(order, k)
	}
	return order, [2]uint64{rand.Uint64(), rand.Uint64()}, true
}

// TestResetRepeats checks that after Reset a thread draws the same
// numbers and makes maps that iterate alike, again and again and on
// other threads, whatever was drawn between.
func TestResetRepeats(t *testing.T) {
	order, nums, ok := draws()
	if !ok {
		t.Skip("Reset is not implemented on " + runtime.GOARCH)
	}
	for i := range 5 {
		for range i * 1000 {
			rand.Uint64()
		}
		done := make(chan struct{})
		var o []int
		var n [2]uint64
		go func() {
			defer close(done)
			o, n, ok = draws()
		}()
		<-done
		if !ok || !slices.Equal(o, order) || n != nums {
			t.Fatalf("after Reset on another goroutine (%d): map order %v, numbers %x; first %v, %x", i, o, n, order, nums)
		}
	}
}

// TestResetIsKeys checks that the stream after Reset is Key's ChaCha8
// stream, past the numbers a map's seed and iteration drew.
func TestResetIsKeys(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if !Reset() {
		t.Skip("Reset is not implemented on " + runtime.GOARCH)
	}
	want := rand.NewChaCha8(Key)
	for i := range 100 { // across refills of the 32-number buffer
		if got, w := rand.Uint64(), want.Uint64(); got != w {
			t.Fatalf("draw %d after Reset: %x, want %x", i, got, w)
		}
	}
}
