package callgrind_test

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/internal/simrand"
)

// initSeed is drawn at initialization, after package simrand's.
var initSeed = maphash.MakeSeed()

// childEnv makes the test binary the measured program of
// TestUnderCallgrind, seedEnv that of TestFixedSeed.
const (
	childEnv = "CALLGRIND_TEST_CHILD"
	seedEnv  = "CALLGRIND_TEST_SEED"
)

func TestMain(m *testing.M) {
	if os.Getenv(seedEnv) != "" {
		// The runtime's random stream shows in a maphash seed drawn at
		// package initialization, as stores draw theirs.
		fmt.Println(maphash.String(initSeed, "x"))
		// And in seeds drawn after the main goroutine has waited while
		// other goroutines ran and threads started, as certbench waits
		// for its samples: the runtime moves the threads' streams, which
		// simrand.Reset puts back.
		for i := range 20 {
			done := make(chan uint64)
			go func() { done <- spin(20000 + i) }()
			sink += <-done
			runtime.GC()
			time.Sleep(time.Millisecond)
		}
		runtime.LockOSThread()
		reset := simrand.Reset()
		fmt.Println(reset, maphash.String(maphash.MakeSeed(), "x"))
		os.Exit(0)
	}
	if os.Getenv(childEnv) != "" {
		if err := child(); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// spin runs n iterations of a loop whose instruction count per
// iteration is fixed.
//
//go:noinline
func spin(n int) uint64 {
	x := uint64(n) | 1
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

var sink uint64

// child measures spin(1000) and spin(101000) in two windows, then
// spin(101000) in a goroutine started while the window's goroutine
// sleeps in a syscall (the scheduler runs it, and resumes the window's
// goroutine, on other threads), and prints "label Ir" for each.
func child() error {
	s, err := callgrind.Open()
	if err != nil {
		return err
	}
	elsewhere := func(n int) {
		done := make(chan uint64)
		go func() { done <- spin(n) }()
		ts := syscall.NsecToTimespec(50e6) // longer than sysmon's longest sleep: it hands the P on
		syscall.Nanosleep(&ts, nil)
		sink = <-done
	}
	for i, n := range []int{1000, 101000, 101000} {
		label := fmt.Sprintf("spin %d\nnext line", n)
		f := func() { sink = spin(n) }
		if i == 2 {
			label, f = fmt.Sprintf("spin %d in a goroutine", n), func() { elsewhere(n) }
		}
		_, file, l, ir, err := s.Collect(label, f)
		if err != nil {
			return err
		}
		if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s not removed after reading", file)
		}
		fmt.Printf("%s\t%d\n", l, ir)
	}
	return nil
}

func TestNotUnderValgrind(t *testing.T) {
	if callgrind.Running() {
		t.Skip("the test itself runs under valgrind")
	}
	t.Setenv(callgrind.DirEnv, "")
	if _, err := callgrind.Open(); !errors.Is(err, callgrind.ErrNotUnderCallgrind) {
		t.Errorf("Open() outside valgrind: %v, want ErrNotUnderCallgrind", err)
	}
	t.Setenv(callgrind.DirEnv, t.TempDir())
	if _, err := callgrind.Open(); !errors.Is(err, callgrind.ErrNotUnderCallgrind) {
		t.Errorf("Open() outside valgrind with %s set: %v, want ErrNotUnderCallgrind", callgrind.DirEnv, err)
	}
	// Outside valgrind the requests do nothing.
	callgrind.ZeroStats()
	callgrind.Dump("x")
}

func TestMissingValgrind(t *testing.T) {
	_, _, err := callgrind.Find("/nonexistent/valgrind")
	if !errors.Is(err, callgrind.ErrNotInstalled) || !strings.Contains(err.Error(), "apt-get install valgrind") {
		t.Errorf("Find of a missing valgrind: %v", err)
	}
}

func TestEnv(t *testing.T) {
	got := callgrind.Env([]string{"A=1", "GODEBUG=madvdontneed=1", "GOMAXPROCS=8", callgrind.DirEnv + "=old"}, "/d")
	want := []string{"A=1", "GODEBUG=madvdontneed=1," + callgrind.GODEBUG, "GOMAXPROCS=1", callgrind.DirEnv + "=/d"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Env = %q, want %q", got, want)
	}
	got = callgrind.Env([]string{"GODEBUG="}, "/d")
	if got[0] != "GODEBUG="+callgrind.GODEBUG {
		t.Errorf("Env with an empty GODEBUG = %q", got)
	}
}

func TestUnderCallgrind(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("runs valgrind (not under -short or -race)")
	}
	if !callgrind.Supported() {
		t.Skip("client requests are implemented for amd64 only")
	}
	if _, _, err := callgrind.Find(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	cmd, err := callgrind.Command(context.Background(), callgrind.Options{Dir: dir}, os.Args[0], "-test.run=^$")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(cmd.Env, childEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		t.Fatalf("child printed %q", out)
	}
	var ir [3]float64
	for i, l := range lines {
		label, n, _ := strings.Cut(l, "\t")
		if want := []string{"spin 1000 next line", "spin 101000 next line", "spin 101000 in a goroutine"}[i]; label != want {
			t.Errorf("window %d label %q, want %q", i, label, want)
		}
		ir[i], _ = strconv.ParseFloat(n, 64)
	}
	// 100,000 more iterations of a loop of a fixed length: between 5 and
	// 20 instructions each, whatever the compiler makes of it, and the
	// windows' fixed costs cancel.
	per := (ir[1] - ir[0]) / 100000
	t.Logf("windows: %v instructions", ir)
	if per < 5 || per > 20 {
		t.Errorf("windows of %v instructions: %.2f per iteration, want 5 to 20", ir, per)
	}
	// The same loop on other threads counts alike, but for the goroutine,
	// the syscall and the scheduler's work: well under an iteration's
	// worth per 100 iterations.
	if d := ir[2] - ir[1]; d < 0 || d > per*1000 {
		t.Errorf("spin 101000 in a goroutine counted %v instructions, inline %v: want the same but for under %v", ir[2], ir[1], per*1000)
	}
}

func TestFixedSeed(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("runs valgrind (not under -short or -race)")
	}
	if !callgrind.Supported() {
		t.Skip("client requests are implemented for amd64 only")
	}
	if _, _, err := callgrind.Find(""); err != nil {
		t.Skip(err)
	}
	hash := func(seed *[16]byte) string {
		t.Helper()
		cmd, err := callgrind.Command(context.Background(), callgrind.Options{Dir: t.TempDir()}, os.Args[0], "-test.run=^$")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, seedEnv+"=1")
		if seed != nil {
			cmd.Env = append(cmd.Env, callgrind.SeedEnv+"=fixed")
		}
		var out strings.Builder
		cmd.Stdout = &out
		if seed == nil {
			err = cmd.Start()
		} else {
			err = callgrind.StartFixedSeed(cmd, *seed)
		}
		if errors.Is(err, callgrind.ErrNoFixedSeed) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out.String())
	}
	one, two := callgrind.Seed, [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	// Timing moves the runtime's random streams, which package simrand
	// resets: five processes hash alike.
	a, c := hash(&one), hash(&two)
	if !strings.Contains(a, "\ntrue ") {
		t.Errorf("the thread's stream was not reset after the waits: %q", a)
	}
	for range 4 {
		if b := hash(&one); a == "" || a != b {
			t.Errorf("two processes started with one seed hash differently: %q, %q", a, b)
		}
	}
	if a == c {
		t.Errorf("two seeds give the same hash %q", a)
	}
	if d, e := hash(nil), hash(nil); d == e {
		t.Logf("without a fixed seed two processes hashed alike (%q): chance, or valgrind fixed the bytes", d)
	}
}

func TestSeedMustHaveTwoHalves(t *testing.T) {
	cmd := exec.Command("true")
	if err := callgrind.StartFixedSeed(cmd, [16]byte{1, 2, 3}); err == nil || cmd.Process != nil {
		t.Errorf("a seed with a zero half: error %v, process %v", err, cmd.Process)
	}
}
