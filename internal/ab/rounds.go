// Package ab is certbench's A/B protocol: build a base and a head, run
// them in interleaved rounds with fixed op counts, merge each side's
// samples, gate head against base and, after an allocation regression,
// profile both sides to name the sites that grew. Rounds is the one
// round loop (certbench ab, peer check and the proxy's go test
// benchmarks use it); Measure runs certbench binaries through it; Run is
// the whole protocol on a git repository, for CI.
//
// A round runs every group (a scenario, or all of them) on both sides
// back to back, base first in odd rounds and head first in even ones
// (ABBA), so that drift of the machine hits both sides alike. Each
// sample carries its round ("round: N"), by which the gate pairs base
// and head.
//
// Run keeps, with RunOptions.Cache (certbench ab --cache; default
// certbench/ab under os.UserCacheDir, e.g. ~/.cache/certbench/ab), the
// base's binary as base-KEY, KEY a hash of the base commit, the module
// directory, main package, build command, --base-replace edits, GOOS and
// GOARCH; and the base's merged results as results-KEY.txt, KEY a hash of
// that key, the certbench version, stores, scenarios, count, ops and
// interleaving. A re-run against the same base then measures only the
// head: its rounds are paired with the cached base's, which were not
// interleaved with them (--no-cache measures both). A base tree is not
// cached; the cache keeps its newest 40 files.
package ab

import (
	"context"
	"fmt"
	"io"
)

// Sides names the two sides, by index.
var Sides = [2]string{"base", "head"}

// A Sample is one process of the protocol: one side in one round and
// group.
type Sample struct {
	Round int // from 1
	Group int // from 0
	Side  int // 0 base, 1 head
}

// Name is the sample's file name: SIDE.ROUND.GROUP.txt.
func (s Sample) Name() string {
	return fmt.Sprintf("%s.%d.%d.txt", Sides[s.Side], s.Round, s.Group)
}

// Rounds runs count rounds of groups groups, both sides of a group back
// to back in ABBA order, calling run for each sample; it stops at the
// first error. log, when not nil, gets a line per round.
func Rounds(ctx context.Context, count, groups int, log io.Writer, run func(context.Context, Sample) error) error {
	for r := 1; r <= count; r++ {
		if log != nil {
			fmt.Fprintf(log, "ab: round %d/%d\n", r, count)
		}
		for g := 0; g < groups; g++ {
			order := [2]int{0, 1}
			if r%2 == 0 {
				order = [2]int{1, 0}
			}
			for _, side := range order {
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := run(ctx, Sample{Round: r, Group: g, Side: side}); err != nil {
					return fmt.Errorf("%s, round %d: %w", Sides[side], r, err)
				}
			}
		}
	}
	return nil
}
