// Package ab is certbench's A/B protocol: build a base and a head, run
// them in interleaved rounds at fixed op counts, merge each side's
// samples, gate head against base and, after an allocation regression,
// profile both to name the sites that grew. Rounds is the one round loop
// (certbench ab, peer check and the proxy's benchmarks use it); Measure
// runs certbench binaries through it; Run is the protocol on a git
// repository, for CI.
//
// A round runs every group on both sides back to back, base first in odd
// rounds and head first in even ones (ABBA), so that the machine's drift
// hits both alike; each sample carries its round, by which the gate pairs
// them.
//
// With RunOptions.Cache, Run keeps the base's binary by a hash of what
// builds it (commit, module directory, main package, build command,
// replaces, GOOS, GOARCH), and its merged results by that and what
// measures them (version, stores, scenarios, count, ops, interleaving): a
// re-run measures only the head. Counts compare as measured; the clock's
// metrics, not measured beside the head, are not paired by round but
// tested unpaired, and every output says so. A base tree is not cached.
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

// Rounds runs count rounds of groups groups in ABBA order, calling run
// for each sample, until the first error; log, if set, gets a line a round.
func Rounds(ctx context.Context, count, groups int, log io.Writer, run func(context.Context, Sample) error) error {
	for r := 1; r <= count; r++ {
		if log != nil {
			fmt.Fprintf(log, "ab: round %d/%d\n", r, count)
		}
		for g := 0; g < groups; g++ {
			for _, side := range [2][2]int{{1, 0}, {0, 1}}[r%2] {
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
