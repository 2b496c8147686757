package simrand

import (
	"math/rand/v2"
	"sync"
	"unsafe"
)

// The runtime's layout this file relies on, checked where it can be: a g
// holds its thread's m at gM (its sixth word, an offset the toolchain's
// linker knows), an m its g0 first (whose m is the m again), and somewhere
// in the m, found by its contents, the generator: internal/chacha8rand's
// State, buf [32]uint64, seed [4]uint64, then the uint32s i (the next of
// buf to return), n and c. math/rand/v2's ChaCha8 begins with the same
// State, which is what Reset copies.
const (
	gM        = 6 * 8
	stateSize = 32*8 + 4*8 + 3*4
	stateI    = 32*8 + 4*8 // i's offset in the State
	scanLimit = 8 << 10    // the bytes of an m searched for the State
)

// getg returns the running goroutine's g.
func getg() unsafe.Pointer

var (
	findOnce sync.Once
	offset   uintptr // of the State in an m; 0: not found
)

// thisM returns the calling thread's m, or nil if the g's m does not
// point back through its g0.
//
//go:nocheckptr
func thisM() unsafe.Pointer {
	m := *(*unsafe.Pointer)(unsafe.Add(getg(), gM))
	if m == nil {
		return nil
	}
	g0 := *(*unsafe.Pointer)(m)
	if g0 == nil || *(*unsafe.Pointer)(unsafe.Add(g0, gM)) != m {
		return nil
	}
	return m
}

// find locates the State in m: two numbers just drawn lie next to each
// other in its buf, and its i says how far it is read.
//
//go:nocheckptr
func find(m unsafe.Pointer) uintptr {
	for range 3 {
		x, y := rand.Uint64(), rand.Uint64()
		for off := uintptr(0); off+16 <= scanLimit; off += 8 {
			if *(*uint64)(unsafe.Add(m, off)) != x || *(*uint64)(unsafe.Add(m, off+8)) != y {
				continue
			}
			// x is buf[k] for the k whose State's i is k+2.
			for k := uintptr(0); k < 31 && k*8 <= off; k++ {
				base := off - k*8
				i := *(*uint32)(unsafe.Add(m, base+stateI))
				n := *(*uint32)(unsafe.Add(m, base+stateI+4))
				if uintptr(i) == k+2 && i <= n && n <= 32 {
					return base
				}
			}
		}
		// The two straddled a refill: draw again.
	}
	return 0
}

// reset copies a fresh State keyed by Key over the thread's, and checks
// that the thread then draws what the fresh generator draws.
//
//go:nocheckptr
func reset() bool {
	m := thisM()
	if m == nil {
		return false
	}
	findOnce.Do(func() { offset = find(m) })
	if offset == 0 {
		return false
	}
	st := (*[stateSize]byte)(unsafe.Add(m, offset))
	fresh := rand.NewChaCha8(Key)
	want := *(*[stateSize]byte)(unsafe.Pointer(fresh))
	old := *st
	*st = want
	if rand.Uint64() != fresh.Uint64() {
		*st = old
		return false
	}
	*st = want
	return true
}
