package profile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
)

// A Job is one capture: a store running a scenario.
type Job struct {
	Store    certstore.Info
	Scenario scenarios.Scenario
}

// FileName returns the name the job's profile is saved under in its
// folder, FileName(scenario, store).
func (j Job) FileName() string { return FileName(j.Scenario.Name, j.Store.Name) }

// Jobs returns one job per scenario and store: scenario by scenario, each
// with the stores in the order given. "certbench profile --all" runs
// Jobs(certstore.Registered(), scenarios.Defaults()) (see AllJobs), and
// narrows either list when --stores or --scenarios is given.
func Jobs(stores []certstore.Info, scs []scenarios.Scenario) []Job {
	jobs := make([]Job, 0, len(stores)*len(scs))
	for _, sc := range scs {
		for _, info := range stores {
			jobs = append(jobs, Job{Store: info, Scenario: sc})
		}
	}
	return jobs
}

// AllJobs returns the jobs of "certbench profile --all": every registered
// store on every scenario of the default set.
func AllJobs() []Job { return Jobs(certstore.Registered(), scenarios.Defaults()) }

// CaptureOptions say where CaptureJobs saves profiles and what it
// summarizes.
type CaptureOptions struct {
	// Dir is the folder the profiles are saved in (created if missing).
	Dir string
	// Ops overrides each scenario's fixed op count when positive.
	Ops int
	// Top is the number of sites per table of each summary (at least 1).
	Top int
	// Progress, when not nil, receives a line per job before it runs.
	Progress io.Writer
}

// CaptureJobs captures each job in turn (see Capture), saves its profile
// as Dir/Job.FileName() and returns each profile's summary (see
// Summarize), whose File is the saved path. It stops at the first error,
// or before the next job once ctx is done.
func CaptureJobs(ctx context.Context, jobs []Job, opts CaptureOptions) ([]*Summary, error) {
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, err
	}
	var sums []*Summary
	for _, j := range jobs {
		if err := ctx.Err(); err != nil {
			return sums, err
		}
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "profiling %s on %s\n", j.Scenario.Name, j.Store.Name)
		}
		res, err := Capture(j.Store.New, j.Store.Name, j.Scenario, opts.Ops)
		if err != nil {
			return sums, err
		}
		path := filepath.Join(opts.Dir, j.FileName())
		if err := Save(res.Profile, path); err != nil {
			return sums, err
		}
		sum, err := Summarize(res.Profile, opts.Top)
		if err != nil {
			return sums, err
		}
		sum.File = path
		sums = append(sums, sum)
	}
	return sums, nil
}

// The index files WriteIndexFiles writes into a folder of profiles.
const (
	IndexMarkdown = "index.md"
	IndexJSON     = "index.json"
)

// WriteIndexFiles writes dir/index.md and dir/index.json, the index of the
// profiles of sums (see WriteIndex), as "certbench profile --all" leaves
// them for a CI artifact.
func WriteIndexFiles(dir string, sums []*Summary) error {
	for _, idx := range []struct {
		name   string
		format Format
	}{{IndexMarkdown, Markdown}, {IndexJSON, JSON}} {
		var buf bytes.Buffer
		if err := WriteIndex(&buf, idx.format, sums); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, idx.name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
