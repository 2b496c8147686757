package ab

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/ci/history"
	"github.com/certbench/certbench/results"
)

// load loads a history, empty if there is none yet.
func load(ctx context.Context, st history.Store) (*history.History, error) {
	h, err := history.Load(ctx, st)
	if errors.Is(err, fs.ErrNotExist) {
		return &history.History{}, nil
	} else if err != nil {
		return nil, &InputError{fmt.Errorf("--history %s: %w", st, err)}
	}
	return h, nil
}

// againstHistory says whether History can be the base: it has results of
// the merge base and of min_samples of its last history_commits commits
// along first parents (the merge base included), so that a clock, one
// value per commit, can reach the gate's min_samples. If not, it says so
// and why, and Run measures the base too.
func (r *run) againstHistory(ctx context.Context) (bool, error) {
	if r.o.History == "" {
		return false, nil
	}
	h, err := load(ctx, r.hist)
	if err != nil {
		return false, err
	}
	window, err := git(ctx, r.root, "rev-list", "--first-parent", "-n", fmt.Sprint(r.policy.HistoryCommits), r.commit)
	if err != nil {
		return false, err
	}
	n := 0
	for _, c := range strings.Fields(window) {
		if h.Index(c) >= 0 {
			n++
		} else if c == r.commit {
			break
		}
	}
	if n < r.policy.MinSamples {
		r.notes = append(r.notes, fmt.Sprintf("%s has results of %d of the merge base %.12s and its %d first-parent ancestors (want it and %d more): the base measured beside the head",
			r.hist, n, r.commit, r.policy.HistoryCommits-1, r.policy.MinSamples-1))
		logf(r.o.Log, "ab: %s", r.notes[len(r.notes)-1])
		return false, nil
	}
	r.desc[0] = fmt.Sprintf("main's history %s up to %.12s (merge base of %s and HEAD)", r.hist, r.commit, r.o.BaseRef)
	return true, nil
}

// gateHistory runs the head alone (runHead) and gates each pass against
// History up to the merge base (history.Base).
func (r *run) gateHistory(ctx context.Context, rep *Outcome) error {
	logf(r.o.Log, "ab: building head (%s) in %s; the base is %s", r.desc[1], r.o.Module, r.desc[0])
	if err := r.b.build(ctx, r.root, r.bins[1]); err != nil {
		return err
	}
	files, _, err := r.o.runHead(ctx, r.bins[1], r.out, r.runArgs())
	if err != nil {
		return err
	}
	for i, file := range files {
		instrument, policy, res := results.InstrumentWall, r.clock, &rep.Wall
		if i == 1 {
			instrument, policy, res = results.InstrumentSimulate, SimPolicy(r.policy), &rep.Sim
		}
		base, used, err := history.Base(ctx, r.hist, r.commit, policy.HistoryCommits, instrument)
		if err != nil {
			return inputf("--history %s: %v", r.hist, err)
		}
		head, err := results.Load(file)
		if err != nil {
			return &InputError{err}
		}
		v, err := gate.Evaluate(base, head, policy)
		if err != nil {
			return inputf("gate: %v", err)
		}
		for _, c := range used {
			v.History = append(v.History, gate.HistoryCommit{Commit: c.Hash, Time: c.Time})
		}
		v.Head, *res = filepath.Base(file), &Result{Verdict: v, Head: file}
	}
	r.rounds = fmt.Sprintf("the head alone, %d samples in one process, against main's history (no base run)", r.o.Count)
	return nil
}

// runHead runs bin as a commit's results are recorded: the clock's pass,
// Count samples in one process, into dir/head.txt and, with Simulate, the
// simulated CPU's, SimCount samples, into dir/sim-head.txt; runArgs are
// more arguments of run. It returns the files, and whether a store failed
// in them (run's exit 1: its results are still written).
func (o *RunOptions) runHead(ctx context.Context, bin, dir string, runArgs []string) (files []string, failed bool, err error) {
	passes := []bool{false}
	if o.Simulate {
		passes = append(passes, true)
	}
	for _, sim := range passes {
		file, n, what := filepath.Join(dir, "head.txt"), o.Count, "certbench run"
		if sim {
			file, n, what = filepath.Join(dir, "sim-head.txt"), o.SimCount, "certbench run --simulate"
		}
		args := Options{Stores: o.Stores, Scenarios: o.Scenarios, Count: n, Ops: o.Ops, RunArgs: runArgs}.runArgs(file, 0, sim)
		code, stderr, err := Command(ctx, bin, nil, args...)
		if err != nil || code > 1 {
			return nil, false, commandError(what, code, stderr, err)
		}
		files, failed = append(files, file), failed || code == 1
	}
	return files, failed, nil
}

// pushTries is how often record pushes a git ref that another job's push
// got ahead of.
const pushTries = 5

// record runs HEAD's binary (runHead) and adds its results to History as
// HEAD's; a git ref (push) is pushed to origin and, when another job
// pushed first, fetched, added to again (adding is idempotent) and pushed
// again.
func (r *run) record(ctx context.Context, push bool) (*Outcome, error) {
	var err error
	if r.commit, err = git(ctx, r.root, "rev-parse", "HEAD"); err != nil {
		return nil, inputf("no HEAD commit to record: %v", err)
	}
	if err := r.resolvePolicy(ctx); err != nil {
		return nil, err
	}
	logf(r.o.Log, "ab: building head (%s) in %s to record in %s", r.desc[1], r.o.Module, r.hist)
	if err := r.b.build(ctx, r.root, r.bins[1]); err != nil {
		return nil, err
	}
	files, failed, err := r.o.runHead(ctx, r.bins[1], r.out, r.runArgs())
	if err == nil && failed {
		err = fmt.Errorf("a store failed in HEAD's run (see %s): nothing recorded", strings.Join(files, ", "))
	}
	if err != nil {
		return nil, err
	}
	at, err := history.CommitTime(ctx, r.root, r.commit)
	if err != nil {
		return nil, err
	}
	ref := strings.TrimPrefix(r.o.History, history.GitPrefix)
	var name string
	for try := 1; ; try++ {
		if name, err = history.Add(ctx, r.hist, r.commit, at, files...); err != nil {
			return nil, &InputError{err}
		}
		if !push {
			break
		} else if _, err = git(ctx, r.root, "push", "-q", "origin", ref); err == nil {
			break
		} else if try == pushTries {
			return nil, fmt.Errorf("could not push %s to origin in %d tries: %v", ref, pushTries, err)
		}
		logf(r.o.Log, "ab: push of %s rejected (another job pushed first?): fetching it and adding again", ref)
		time.Sleep(time.Duration(try*2) * time.Second)
		git(ctx, r.root, "fetch", "-q", "origin", "+"+ref+":"+ref)
	}
	rep := &Outcome{Summary: fmt.Appendf(nil, "### certbench: recorded %.12s's results in %s\n\nAs %s.\n", r.commit, r.hist, name)}
	logf(r.o.Log, "ab: stored %s in %s", name, r.hist)
	return rep, os.WriteFile(filepath.Join(r.out, "summary.md"), rep.Summary, 0o644)
}

// Backfill records the commits of the git range spec ("v0.3.0..main", its
// newest an ancestor of HEAD) that History lacks, oldest first along first
// parents: each is built as Run builds a base (Module, Main, Build; its
// binary kept in Cache), run as Run records HEAD (Stores, Scenarios,
// Count, Ops, Simulate, SimCount) and added. A commit that does not build
// or whose run fails is skipped with a warning to Log, and the build log
// kept. It returns how many commits it stored, of how many in the range.
func Backfill(ctx context.Context, o RunOptions, spec string) (stored, of int, err error) {
	if o.Out, err = os.MkdirTemp("", "certbench-backfill-"); err != nil {
		return 0, 0, err
	}
	r, warned := &run{o: o}, false
	defer func() {
		if !warned {
			os.RemoveAll(o.Out)
		}
	}()
	if err := r.setup(ctx); err != nil {
		return 0, 0, err
	}
	defer r.b.log.Close()
	// Along first parents, oldest first; ancestors of HEAD, as a commit is
	// built in a worktree of HEAD's history.
	list, err := git(ctx, r.root, "rev-list", "--reverse", "--first-parent", spec, "--")
	commits := strings.Fields(list)
	if err != nil || len(commits) == 0 {
		return 0, 0, inputf("%s: no commits (%v)", spec, err)
	}
	if _, err := git(ctx, r.root, "merge-base", "--is-ancestor", commits[len(commits)-1], "HEAD"); err != nil {
		return 0, 0, inputf("%s: its newest commit %.12s is not an ancestor of HEAD: check out the branch it is on", spec, commits[len(commits)-1])
	}
	h, err := load(ctx, r.hist)
	if err != nil {
		return 0, 0, err
	}
	for i, c := range commits {
		at := fmt.Sprintf("%.12s (%d of %d)", c, i+1, len(commits))
		if h.Index(c) >= 0 {
			logf(o.Log, "certbench: %s: stored already", at)
			continue
		}
		_, _, err := r.b.cachedCommit(ctx, r.root, o.Cache, c, nil, r.bins[0], nil, "")
		var files []string
		failed := true
		if err == nil {
			files, failed, err = o.runHead(ctx, r.bins[0], r.out, nil)
		}
		if err != nil || failed {
			logf(o.Log, "certbench: warning: %s: skipped: %v", at, cmp.Or(err, errors.New("a store failed in its run")))
			warned = true
			continue
		}
		t, err := history.CommitTime(ctx, r.root, c)
		if err != nil {
			return stored, len(commits), err
		}
		if _, err := history.Add(ctx, r.hist, c, t, files...); err != nil {
			return stored, len(commits), &InputError{err}
		}
		stored++
		logf(o.Log, "certbench: %s: stored in %s", at, r.hist)
	}
	return stored, len(commits), nil
}
