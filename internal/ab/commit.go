package ab

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// BuildCommit builds the module's certbench binary (o.Dir, default the
// working directory, o.Main and o.Build as for Run) at commit, an ancestor
// of HEAD, into bin in a temporary worktree, the build's output to log.
// With o.Cache the binary is taken from, or kept in, the cache where Run
// keeps its base binaries by commit; cached says it was taken.
func BuildCommit(ctx context.Context, o RunOptions, commit, bin string, log *os.File) (cached bool, err error) {
	root, err := git(ctx, ".", "rev-parse", "--show-toplevel")
	if err != nil {
		return false, inputf("not in a git repository: %v", err)
	}
	if o.Dir == "" {
		prefix, _ := git(ctx, ".", "rev-parse", "--show-prefix")
		o.Dir = strings.TrimSuffix(prefix, "/")
	}
	b := &builder{dir: filepath.Clean(o.Dir), main: o.Main, cmd: o.Build, log: log}
	_, kept, err := b.cachedCommit(ctx, root, o.Cache, commit, nil, bin, nil, "")
	return kept != "", err
}
