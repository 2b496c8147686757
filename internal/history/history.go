package history

import (
	"bytes"
	"cmp"
	"context"
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
	Values []float64 // sorted
}

// A History is the results of a store's commits in commit order: by
// commit time, then hash.
type History struct {
	Commits []Commit
	Keys    []Key // sorted
	series  map[Key][]Point
}

// Series returns every point of k, in commit order.
func (h *History) Series(k Key) []Point { return h.series[k] }

// Recent returns the points of k at the last n commits that have it,
// oldest first: the history a head is judged against.
func (h *History) Recent(k Key, n int) []Point {
	p := h.series[k]
	return p[max(0, len(p)-n):]
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

// loaded is one stored file, read.
type loaded struct {
	commit Commit
	keys   []Key
	vals   [][]float64
	err    error
}

// Load reads every file of st. A stored file that does not read, or
// whose commit lines are missing or disagree with its name, is an error
// naming it. Files are read in parallel.
func Load(ctx context.Context, st Store) (*History, error) {
	files, err := st.Files(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]loaded, len(names))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				out[i] = readFile(st.String()+"/"+names[i], files[names[i]])
			}
		})
	}
	for i := range names {
		next <- i
	}
	close(next)
	wg.Wait()

	h := &History{series: map[Key][]Point{}}
	slices.SortStableFunc(out, func(a, b loaded) int {
		return cmp.Or(a.commit.Time.Compare(b.commit.Time), cmp.Compare(a.commit.Hash, b.commit.Hash))
	})
	for _, f := range out {
		if f.err != nil {
			return nil, f.err
		}
		if n := len(h.Commits); n == 0 || h.Commits[n-1].Hash != f.commit.Hash {
			h.Commits = append(h.Commits, f.commit)
		}
		ci := len(h.Commits) - 1
		for j, k := range f.keys {
			pts := h.series[k]
			if n := len(pts); n > 0 && pts[n-1].Commit == ci { // a second file of the commit
				pts[n-1].Values = append(pts[n-1].Values, f.vals[j]...)
				slices.Sort(pts[n-1].Values)
				continue
			}
			h.series[k] = append(pts, Point{Commit: ci, Values: f.vals[j]})
		}
	}
	for k := range h.series {
		h.Keys = append(h.Keys, k)
	}
	slices.SortFunc(h.Keys, func(a, b Key) int {
		return cmp.Or(cmp.Compare(a.Benchmark, b.Benchmark), cmp.Compare(a.Unit, b.Unit))
	})
	return h, nil
}

// readFile reads one stored file.
func readFile(name string, data []byte) loaded {
	set, err := results.Read(bytes.NewReader(data), name)
	if err != nil {
		return loaded{err: err}
	}
	var f loaded
	s0 := set.Series[0]
	f.commit.Hash = s0.GetConfig(CommitKey)
	base := name[strings.LastIndex(name, "/")+1:]
	if f.commit.Hash == "" || !strings.HasPrefix(base, f.commit.Hash+"-") {
		return loaded{err: fmt.Errorf("%s: its %q line (%q) does not name the commit of its file name", name, CommitKey, f.commit.Hash)}
	}
	if f.commit.Time, err = time.Parse(time.RFC3339, s0.GetConfig(CommitTimeKey)); err != nil {
		return loaded{err: fmt.Errorf("%s: %s: %v", name, CommitTimeKey, err)}
	}
	var m []string
	for _, k := range machineKeys {
		if v := s0.GetConfig(k); v != "" {
			m = append(m, k+"="+v)
		}
	}
	f.commit.Machine = strings.Join(m, " ")
	idx := map[Key]int{}
	for _, s := range set.Series {
		for _, met := range s.Metrics {
			k := Key{Benchmark: benchmark(s.Name.String()), Unit: met.Unit}
			if i, ok := idx[k]; ok { // the series in another configuration
				f.vals[i] = append(f.vals[i], met.Values...)
				slices.Sort(f.vals[i])
				continue
			}
			idx[k] = len(f.keys)
			f.keys = append(f.keys, k)
			f.vals = append(f.vals, met.Values)
		}
	}
	return f
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
