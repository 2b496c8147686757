package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/results"
)

// storeFaults reports each fault of a store under test (bench.StoreFault):
// a line on stderr naming the sample, the call and the stack's file, the
// file, and a failure record in the results, which gate reads.
type storeFaults struct {
	errOut io.Writer
	base   string // stack files: base-KIND-STORE-SCENARIO-SAMPLE.txt; "": temporary files
	w      *results.Writer

	stores  []string          // the stores that failed, in order
	n       int               // faults
	stopped *bench.StoreFault // the fault that stopped the run
}

// stackBase returns the base of stack file names for results written to
// output: without its extension (results-panic-....txt beside
// results.txt); "" for stdout (temporary files).
func stackBase(output string) string {
	if output == "" || output == "-" {
		return ""
	}
	return strings.TrimSuffix(output, filepath.Ext(output))
}

// report is bench.Options.Fault.
func (r *storeFaults) report(f *bench.StoreFault) error {
	r.note(f)
	line := "certbench: " + f.Error()
	if path, err := r.writeStack(f); err != nil {
		line += fmt.Sprintf(" (stack not written: %v)", err)
	} else {
		line += "; stack in " + path
	}
	fmt.Fprintln(r.errOut, line)
	if f.Stops() {
		fmt.Fprintf(r.errOut, "certbench: measuring stops: code of store %s that cannot be stopped is left in the process, and would disturb every later sample\n", f.Store)
	}
	return r.w.WriteFailure(f.Name, f.Reason())
}

// note counts a fault.
func (r *storeFaults) note(f *bench.StoreFault) {
	r.n++
	if !slices.Contains(r.stores, f.Store) {
		r.stores = append(r.stores, f.Store)
	}
	if f.Stops() {
		r.stopped = f
	}
}

// profileFault reports a fault in a heap-profile capture: its line on
// errOut and its stack file (no result file to record it in).
func (r *storeFaults) profileFault(f *bench.StoreFault) error {
	r.note(f)
	path, err := r.writeStack(f)
	if err != nil {
		return err
	}
	fmt.Fprintf(r.errOut, "certbench: %s; stack in %s\n", f.Error(), path)
	return nil
}

// writeStack writes the fault's stack file (bench.StoreFault.WriteStack)
// beside the results, or a temporary one, and returns its path.
func (r *storeFaults) writeStack(f *bench.StoreFault) (string, error) {
	var file *os.File
	var err error
	if r.base == "" {
		file, err = os.CreateTemp("", "certbench-"+f.FileName()+"-*.txt")
	} else {
		file, err = os.Create(r.base + "-" + f.FileName() + ".txt")
	}
	if err != nil {
		return "", err
	}
	werr := f.WriteStack(file)
	if cerr := file.Close(); werr == nil {
		werr = cerr
	}
	return file.Name(), werr
}

// err returns the error of a run whose faults were reported: nil if none
// was, else an error with ExitStoreFailed. kept says what was kept
// ("3 complete samples").
func (r *storeFaults) err(kept string) error {
	if r.n == 0 {
		return nil
	}
	if r.stopped != nil {
		return &exitError{code: ExitStoreFailed, err: fmt.Errorf("store %s did not return: measuring stopped, %s kept", r.stopped.Store, kept)}
	}
	what := "store " + r.stores[0]
	if len(r.stores) > 1 {
		what = "stores " + strings.Join(r.stores, ", ")
	}
	return &exitError{code: ExitStoreFailed, err: fmt.Errorf("%s failed in %s (see above), each time not measured again in that scenario; %s kept", what, plural(r.n, "sample"), kept)}
}

// plural is "1 sample", "2 samples".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// storeFailed reports whether err says a store under test failed.
func storeFailed(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.code == ExitStoreFailed
}
