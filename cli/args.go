package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/certbench/certbench/internal/yamlfile"
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
			f = cmd.Flag(name)
		case len(name) > 1 && cmd.Flag(name) != nil:
			f = cmd.Flag(name)
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
	if h, ok := habits[word]; ok && (h.flag == "" || cmd.Flag(h.flag) != nil) {
		if h.flag == "" {
			return fmt.Errorf("unknown flag %s: not needed, %s", typed, h.why)
		}
		return fmt.Errorf("unknown flag %s: %s, set by --%s", typed, h.why, h.flag)
	}
	var names []string
	visit := func(f *pflag.Flag) {
		if !f.Hidden && f.Deprecated == "" {
			names = append(names, f.Name)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	if s := yamlfile.DidYouMean(word, names); s != "" {
		return fmt.Errorf("unknown flag %s%s (see %s --help)", typed, strings.Replace(s, "mean ", "mean --", 1), cmd.CommandPath())
	}
	return fmt.Errorf("unknown flag %s (see %s --help)", typed, cmd.CommandPath())
}
