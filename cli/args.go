package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// longForms returns args with every single-dash long flag of the command
// they run (-count 6, as go test and benchstat spell it) spelled with two
// dashes. Values, shorthands and what follows "--" are left alone.
func longForms(root *cobra.Command, args []string) []string {
	if len(args) > 0 && strings.HasPrefix(args[0], "__complete") {
		return args // shell completion sees what the user typed
	}
	cmd, _, err := root.Find(args)
	if err != nil {
		return args
	}
	cmd.InitDefaultHelpFlag()
	out := append([]string(nil), args...)
	for i := 0; i < len(out); i++ {
		arg := out[i]
		if arg == "--" || !strings.HasPrefix(arg, "-") || arg == "-" {
			if arg == "--" {
				break
			}
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		var f *pflag.Flag
		switch {
		case strings.HasPrefix(arg, "--"):
			f = lookupFlag(cmd, name)
		case len(name) > 1 && lookupFlag(cmd, name) != nil:
			f = lookupFlag(cmd, name)
			out[i] = "-" + arg
		case len(name) == 1:
			f = shorthandFlag(cmd, name)
		default:
			continue // a group of shorthands, or unknown: pflag says
		}
		if f != nil && !hasValue && f.NoOptDefVal == "" {
			i++ // the next argument is the flag's value
		}
	}
	return out
}

// lookupFlag returns cmd's flag name, its own or inherited, or nil.
func lookupFlag(cmd *cobra.Command, name string) *pflag.Flag {
	if f := cmd.Flags().Lookup(name); f != nil {
		return f
	}
	return cmd.InheritedFlags().Lookup(name)
}

// shorthandFlag returns cmd's flag of shorthand letter s, or nil.
func shorthandFlag(cmd *cobra.Command, s string) *pflag.Flag {
	if f := cmd.Flags().ShorthandLookup(s); f != nil {
		return f
	}
	return cmd.InheritedFlags().ShorthandLookup(s)
}

// habits maps flags of go test and benchstat that certbench spells
// differently to what to use instead, when the command has it.
var habits = map[string]struct{ flag, why string }{
	"benchtime": {"ops", "a sample runs a fixed number of ops"},
	"bench":     {"scenarios", "certbench runs named scenarios"},
	"benchmem":  {"", "B/op and allocs/op are always measured"},
}

// flagError explains a flag error of cmd: an unknown flag names the
// closest flag cmd has.
func flagError(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return err
	}
	typed := "--" + ne.GetSpecifiedName()
	word := ne.GetSpecifiedName()
	if s := ne.GetSpecifiedShortnames(); s != "" {
		typed, word = "-"+s, s
		if len(s) == 1 {
			return fmt.Errorf("unknown shorthand flag %s (see %s --help)", typed, cmd.CommandPath())
		}
	}
	word, _, _ = strings.Cut(word, "=")
	typed, _, _ = strings.Cut(typed, "=")
	if h, ok := habits[word]; ok && (h.flag == "" || lookupFlag(cmd, h.flag) != nil) {
		if h.flag == "" {
			return fmt.Errorf("unknown flag %s: not needed, %s", typed, h.why)
		}
		return fmt.Errorf("unknown flag %s: %s, set by --%s", typed, h.why, h.flag)
	}
	if best := closestFlag(cmd, word); best != "" {
		return fmt.Errorf("unknown flag %s; did you mean --%s? (see %s --help)", typed, best, cmd.CommandPath())
	}
	return fmt.Errorf("unknown flag %s (see %s --help)", typed, cmd.CommandPath())
}

// closestFlag returns the visible flag of cmd closest to word: a prefix
// either way, or within a few edits; "" if none is close.
func closestFlag(cmd *cobra.Command, word string) string {
	best, bestScore := "", [2]int{len(word)/3 + 2, 0}
	visit := func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		d := editDistance(word, f.Name)
		score := [2]int{d, d}
		if strings.HasPrefix(f.Name, word) || strings.HasPrefix(word, f.Name) {
			score[0] = min(d, 1)
		}
		if score[0] < bestScore[0] || (score[0] == bestScore[0] && best != "" && score[1] < bestScore[1]) {
			best, bestScore = f.Name, score
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := []int{i}
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur = append(cur, min(sub, prev[j]+1, cur[j-1]+1))
		}
		prev = cur
	}
	return prev[len(b)]
}
