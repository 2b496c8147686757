package history

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/certbench/certbench/results"
)

// A Commit is one commit of a history.
type Commit struct {
	Hash string    `json:"commit"`
	Time time.Time `json:"time"`
	// Machine sums up the machine's configuration lines (goos, goarch,
	// cpu, go, gomaxprocs) of the commit's results, so that a change
	// point at a new runner or Go version can say so.
	Machine string `json:"machine"`
}

// A Key names one series of a history: a benchmark (its scenario and
// store) and a unit, as benchfmt reads it ("sec/op").
type Key struct {
	Benchmark string `json:"benchmark"`
	Unit      string `json:"unit"`
}

// A Point is the samples of one series at one commit.
type Point struct {
	Commit int       // index in History.Commits
	Values []float64 // sorted; shared with the History: read-only
}

// A History is the results of a store's commits in commit order: by
// commit time, then hash.
type History struct {
	Commits []Commit
	Keys    []Key // sorted
	series  map[Key]*track
}

// A track is one series, flat: the samples of point i are
// vals[off[i]:off[i+1]], at commit commit[i]. Ten thousand commits of
// two hundred series are two million points: no slice per point.
type track struct {
	commit []int32
	off    []int32
	vals   []float64
}

func (t *track) len() int { return len(t.commit) }

func (t *track) point(i int) Point {
	return Point{Commit: int(t.commit[i]), Values: t.vals[t.off[i]:t.off[i+1]:t.off[i+1]]}
}

// points returns the points from i on.
func (t *track) points(i int) []Point {
	out := make([]Point, 0, t.len()-i)
	for ; i < t.len(); i++ {
		out = append(out, t.point(i))
	}
	return out
}

// Series returns every point of k, in commit order.
func (h *History) Series(k Key) []Point {
	if t := h.series[k]; t != nil {
		return t.points(0)
	}
	return nil
}

// Recent returns the points of k at the last n commits that have it,
// oldest first: the history a head is judged against.
func (h *History) Recent(k Key, n int) []Point {
	if t := h.series[k]; t != nil {
		return t.points(max(0, t.len()-n))
	}
	return nil
}

// Index returns the index of the commit whose hash is, or starts with,
// hash, or -1.
func (h *History) Index(hash string) int {
	found := -1
	for i, c := range h.Commits {
		if c.Hash == hash {
			return i
		}
		if hash != "" && strings.HasPrefix(c.Hash, hash) {
			found = i
		}
	}
	return found
}

// machineKeys are the configuration lines Commit.Machine sums up.
var machineKeys = []string{"goos", "goarch", "cpu", "go", "gomaxprocs"}

// loaded is one stored file, read: for each of its series (keys, ids
// into the loader's keys) n[i] sorted values, one after the other in vals.
type loaded struct {
	commit Commit
	keys   []int32
	n      []int32
	vals   []float64
}

// loader reads files on several goroutines into one set of keys.
type loader struct {
	mu   sync.Mutex
	ids  map[Key]int32
	keys []Key
}

func (l *loader) id(k Key) int32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	id, ok := l.ids[k]
	if !ok {
		id = int32(len(l.keys))
		l.ids[k] = id
		l.keys = append(l.keys, k)
	}
	return id
}

// Load reads every file of st, in parallel. A stored file that does not
// read, or whose commit lines are missing or disagree with its name, is
// an error naming it.
func Load(ctx context.Context, st Store) (*History, error) {
	l := &loader{ids: map[Key]int32{}}
	type file struct {
		name string
		data []byte
	}
	var (
		mu     sync.Mutex
		out    []*loaded
		errs   []error
		wg     sync.WaitGroup
		next   = make(chan file, 16)
		cancel = make(chan struct{})
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for f := range next {
				r, err := l.read(st.String()+"/"+f.name, f.data)
				mu.Lock()
				if err != nil && len(errs) == 0 {
					close(cancel)
				}
				out, errs = append(out, r), append(errs, err)
				mu.Unlock()
			}
		})
	}
	err := st.Walk(ctx, func(name string, data []byte) error {
		select {
		case next <- file{name, data}:
			return nil
		case <-cancel:
			return errors.New("stopped")
		}
	})
	close(next)
	wg.Wait()
	for _, e := range errs { // the first file's error, not the walk's stop
		if e != nil {
			return nil, e
		}
	}
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b *loaded) int {
		return cmp.Or(a.commit.Time.Compare(b.commit.Time), cmp.Compare(a.commit.Hash, b.commit.Hash))
	})
	return l.build(out), nil
}

// build lays the files, in commit order, out as tracks, sized first so
// that no track grows by copying; each file is dropped once laid out.
func (l *loader) build(files []*loaded) *History {
	h := &History{series: make(map[Key]*track, len(l.keys))}
	tracks := make([]track, len(l.keys))
	points, vals := make([]int, len(l.keys)), make([]int, len(l.keys))
	for _, f := range files {
		for i, id := range f.keys {
			points[id]++
			vals[id] += int(f.n[i])
		}
	}
	for id := range tracks {
		tracks[id] = track{commit: make([]int32, 0, points[id]), off: make([]int32, 1, points[id]+1), vals: make([]float64, 0, vals[id])}
	}
	for fi, f := range files {
		if n := len(h.Commits); n == 0 || h.Commits[n-1].Hash != f.commit.Hash {
			h.Commits = append(h.Commits, f.commit)
		}
		ci := int32(len(h.Commits) - 1)
		off := 0
		for i, id := range f.keys {
			t, v := &tracks[id], f.vals[off:off+int(f.n[i])]
			off += len(v)
			t.vals = append(t.vals, v...)
			if n := t.len(); n > 0 && t.commit[n-1] == ci { // a second file of the commit
				slices.Sort(t.vals[t.off[n-1]:])
				t.off[n] = int32(len(t.vals))
				continue
			}
			t.commit = append(t.commit, ci)
			t.off = append(t.off, int32(len(t.vals)))
		}
		files[fi] = nil
	}
	h.Keys = l.keys
	for id, k := range l.keys {
		h.series[k] = &tracks[id]
	}
	slices.SortFunc(h.Keys, func(a, b Key) int {
		return cmp.Or(cmp.Compare(a.Benchmark, b.Benchmark), cmp.Compare(a.Unit, b.Unit))
	})
	return h
}

// read reads one stored file.
func (l *loader) read(name string, data []byte) (*loaded, error) {
	set, err := results.Read(bytes.NewReader(data), name)
	if err != nil {
		return nil, err
	}
	f := &loaded{}
	s0 := set.Series[0]
	f.commit.Hash = s0.GetConfig(CommitKey)
	base := name[strings.LastIndex(name, "/")+1:]
	if f.commit.Hash == "" || !strings.HasPrefix(base, f.commit.Hash+"-") {
		return nil, fmt.Errorf("%s: its %q line (%q) does not name the commit of its file name", name, CommitKey, f.commit.Hash)
	}
	if f.commit.Time, err = time.Parse(time.RFC3339, s0.GetConfig(CommitTimeKey)); err != nil {
		return nil, fmt.Errorf("%s: %s: %v", name, CommitTimeKey, err)
	}
	var m []string
	for _, k := range machineKeys {
		if v := s0.GetConfig(k); v != "" {
			m = append(m, k+"="+v)
		}
	}
	f.commit.Machine = strings.Join(m, " ")
	// A series read in two configurations is one series here: gather
	// each key's values.
	byKey := map[int32][]float64{}
	for _, s := range set.Series {
		for _, met := range s.Metrics {
			id := l.id(Key{Benchmark: benchmark(s.Name.String()), Unit: met.Unit})
			if _, ok := byKey[id]; !ok {
				f.keys = append(f.keys, id)
			}
			byKey[id] = append(byKey[id], met.Values...)
		}
	}
	for _, id := range f.keys {
		v := byKey[id]
		slices.Sort(v)
		f.n = append(f.n, int32(len(v)))
		f.vals = append(f.vals, v...)
	}
	return f, nil
}

// benchmark returns a benchmark name without its GOMAXPROCS suffix
// ("-2"), which Commit.Machine has: one series across runners.
func benchmark(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 || strings.Trim(name[i+1:], "0123456789") != "" {
		return name
	}
	return name[:i]
}
