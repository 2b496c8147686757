package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/certbench/certbench/results"
)

// commitRE is what a commit name must look like: a stored file's name
// starts with it, and it is a configuration value.
var commitRE = regexp.MustCompile(`^[0-9A-Za-z._]{1,64}$`)

// Check reads the result file at path as Add would store it and reports
// why it may not be: unreadable or malformed (results.Load's errors, with
// file and line), cut short (no closing "# certbench-end" line, or one
// that counts other results: results' warnings), foreign (a result not
// named NAME/scenario=S/store=T or without the certbench-version line
// that makes a cut detectable), or carrying its own commit.
func Check(path string) error {
	set, err := results.Load(path)
	if err != nil {
		return err
	}
	if err := set.Cut(); err != nil {
		return fmt.Errorf("refused: %w", err)
	}
	for _, s := range set.Series {
		if !results.IsCertbench(s.Result()) || s.GetConfig(results.VersionKey) == "" {
			return fmt.Errorf("%s: refused: benchmark %s is not a certbench result (want NAME/scenario=S/store=T, with a certbench-version line)", path, s.Name.Full())
		}
		if c := s.GetConfig(CommitKey); c != "" {
			return fmt.Errorf("%s: refused: it has a %q line already (%s): it is a stored file, not a run's", path, CommitKey, c)
		}
	}
	return nil
}

// Add stores the result files of one commit, merged into one file (see
// results.Merge) that starts with the commit's configuration lines
// ("commit: C", "commit-time: T"). It checks every file first (Check) and
// stores nothing if one is refused.
func Add(ctx context.Context, st Store, commit string, at time.Time, paths ...string) (string, error) {
	if !commitRE.MatchString(commit) {
		return "", fmt.Errorf("--commit %q: want a commit hash or name of letters, digits, '.' and '_'", commit)
	}
	if len(paths) == 0 {
		return "", errors.New("no result files to add")
	}
	for _, p := range paths {
		if err := Check(p); err != nil {
			return "", err
		}
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s: %s\n%s: %s\n", CommitKey, commit, CommitTimeKey, at.UTC().Format(time.RFC3339))
	if _, err := results.Merge(&buf, paths...); err != nil {
		return "", err
	}
	name := FileName(commit, buf.Bytes())
	return name, st.Put(ctx, name, buf.Bytes())
}
