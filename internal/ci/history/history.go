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
	"golang.org/x/perf/benchfmt"
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

// A track is one series: the samples of point i, at commit commit[i],
// are vals[i], a part of the one array of its file's values (no
// allocation per point).
type track struct {
	commit []int32
	vals   [][]float64
}

func (t *track) len() int { return len(t.commit) }

// Recent returns the points of k at the last n commits that have it,
// oldest first: the history a head is judged against (n < 0: all).
func (h *History) Recent(k Key, n int) []Point {
	t := h.series[k]
	if t == nil {
		return nil
	}
	if n < 0 {
		n = t.len()
	}
	var out []Point
	for i := max(0, t.len()-n); i < t.len(); i++ {
		out = append(out, Point{Commit: int(t.commit[i]), Values: t.vals[i]})
	}
	return out
}

// Index returns the index of the commit whose hash is hash, or starts
// with it, or is the start of it (a history of short hashes, a full one
// asked), or -1.
func (h *History) Index(hash string) int {
	found := -1
	for i, c := range h.Commits {
		if c.Hash == hash {
			return i
		}
		if hash != "" && (strings.HasPrefix(c.Hash, hash) || strings.HasPrefix(hash, c.Hash)) {
			found = i
		}
	}
	return found
}

// machineKeys are the configuration lines Commit.Machine sums up.
var machineKeys = []string{"goos", "goarch", "cpu", "go", "gomaxprocs"}

// loaded is one stored file, read: n[i] sorted values of series keys[i]
// (ids into the loader's keys), one series after the other in vals.
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
		data *[]byte // from bufs: the walk's data is the walk's
	}
	bufs := sync.Pool{New: func() any { return new([]byte) }}
	var (
		mu     sync.Mutex
		out    []*loaded
		first  error // the first file's error
		wg     sync.WaitGroup
		next   = make(chan file, 16)
		cancel = make(chan struct{})
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			w := &worker{names: map[string]*named{}}
			for f := range next {
				r, err := l.read(w, st.String()+"/"+f.name, *f.data)
				bufs.Put(f.data)
				mu.Lock()
				if err != nil && first == nil {
					first = err
					close(cancel)
				}
				out = append(out, r)
				mu.Unlock()
			}
		})
	}
	err := st.Walk(ctx, func(name string, data []byte) error {
		select {
		case next <- file{name, copyTo(bufs.Get().(*[]byte), data)}:
			return nil
		case <-cancel:
			return errors.New("stopped")
		}
	})
	close(next)
	wg.Wait()
	if err = cmp.Or(first, err); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b *loaded) int {
		return cmp.Or(a.commit.Time.Compare(b.commit.Time), cmp.Compare(a.commit.Hash, b.commit.Hash))
	})
	return l.build(out), nil
}

// build lays the files, in commit order, out as tracks, sized first so
// that no track grows by copying.
func (l *loader) build(files []*loaded) *History {
	h := &History{series: make(map[Key]*track, len(l.keys))}
	tracks := make([]track, len(l.keys))
	points := make([]int, len(l.keys))
	for _, f := range files {
		for _, id := range f.keys {
			points[id]++
		}
	}
	for id := range tracks {
		tracks[id] = track{commit: make([]int32, 0, points[id]), vals: make([][]float64, 0, points[id])}
	}
	for _, f := range files {
		if n := len(h.Commits); n == 0 || h.Commits[n-1].Hash != f.commit.Hash {
			h.Commits = append(h.Commits, f.commit)
		}
		ci := int32(len(h.Commits) - 1)
		off := 0
		for i, id := range f.keys {
			t, v := &tracks[id], f.vals[off:off+int(f.n[i]):off+int(f.n[i])]
			off += len(v)
			if n := t.len(); n > 0 && t.commit[n-1] == ci { // a second file of the commit
				t.vals[n-1] = append(t.vals[n-1], v...) // a copy: v's capacity is clipped
				slices.Sort(t.vals[n-1])
				continue
			}
			t.commit = append(t.commit, ci)
			t.vals = append(t.vals, v)
		}
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

// A worker is one goroutine of Load, with its caches: per benchmark
// name as written, its name in Keys and the series of its units, and
// per series its order in the file being read (-1: not in it yet).
type worker struct {
	names map[string]*named
	order []int32
	in    bytes.Reader
	rd    *benchfmt.Reader // reused, with keys and vals: garbage is what a large history costs
	keys  []int32
	vals  []float64
}

type named struct {
	bench string
	units []string
	ids   []int32
}

// read reads one stored file with benchfmt's reader and results'
// checks of every value: Add checked the file whole (Check) when it was
// stored, so the rest of results.Read's work is not needed again.
func (l *loader) read(w *worker, name string, data []byte) (*loaded, error) {
	f := &loaded{}
	keys, vals := w.keys[:0], w.vals[:0] // per value read, its series' order in the file, and the value
	defer func() { w.keys, w.vals = keys, vals }()
	defer func() {
		for _, id := range f.keys {
			w.order[id] = -1
		}
	}()
	w.in.Reset(data)
	if w.rd == nil {
		w.rd = benchfmt.NewReader(&w.in, name)
	}
	rd := w.rd
	rd.Reset(&w.in, name)
	for rd.Scan() {
		var res *benchfmt.Result
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			res = rec
		default:
			continue
		}
		if err := results.CheckResult(res); err != nil {
			return nil, err
		}
		if f.commit.Hash == "" {
			if err := f.commit.read(name, res); err != nil {
				return nil, err
			}
		}
		nm := w.names[string(res.Name)]
		if nm == nil {
			nm = &named{bench: benchmark(string(res.Name))}
			w.names[string(res.Name)] = nm
		}
		for j, v := range res.Values {
			if j >= len(nm.units) || nm.units[j] != v.Unit {
				nm.units = append(nm.units[:j], v.Unit)
				nm.ids = append(nm.ids[:j], l.id(Key{Benchmark: nm.bench, Unit: v.Unit}))
			}
			id := nm.ids[j]
			for int(id) >= len(w.order) {
				w.order = append(w.order, -1)
			}
			if w.order[id] < 0 {
				w.order[id] = int32(len(f.keys))
				f.keys = append(f.keys, id)
			}
			keys, vals = append(keys, w.order[id]), append(vals, v.Value)
		}
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	if f.commit.Hash == "" {
		return nil, fmt.Errorf("%s: no results", name)
	}
	// Lay the values out by series, each series' sorted.
	f.n = make([]int32, len(f.keys))
	for _, k := range keys {
		f.n[k]++
	}
	start := make([]int32, len(f.keys)+1)
	for i, n := range f.n {
		start[i+1] = start[i] + n
	}
	f.vals = make([]float64, len(vals))
	next := slices.Clone(start[:len(f.keys)])
	for i, k := range keys {
		f.vals[next[k]] = vals[i]
		next[k]++
	}
	for i := range f.keys {
		slices.Sort(f.vals[start[i]:start[i+1]])
	}
	return f, nil
}

// read sets c from the configuration of res, the first result of the
// stored file name.
func (c *Commit) read(name string, res *benchfmt.Result) error {
	c.Hash = res.GetConfig(CommitKey)
	base := name[strings.LastIndex(name, "/")+1:]
	if c.Hash == "" || !strings.HasPrefix(base, c.Hash+"-") {
		return fmt.Errorf("%s: its %q line (%q) does not name the commit of its file name", name, CommitKey, c.Hash)
	}
	var err error
	if c.Time, err = time.Parse(time.RFC3339, res.GetConfig(CommitTimeKey)); err != nil {
		return fmt.Errorf("%s: %s: %v", name, CommitTimeKey, err)
	}
	var m []string
	for _, k := range machineKeys {
		if v := res.GetConfig(k); v != "" {
			m = append(m, k+"="+v)
		}
	}
	c.Machine = strings.Join(m, " ")
	return nil
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

// copyTo copies data to *buf, reused, and returns buf.
func copyTo(buf *[]byte, data []byte) *[]byte {
	*buf = append((*buf)[:0], data...)
	return buf
}
