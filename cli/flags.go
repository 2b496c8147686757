package cli

import (
	"io"
	"slices"
	"strings"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/yamlfile"
	"github.com/certbench/certbench/scenarios"
	"github.com/spf13/cobra"
)

// IO is where a command writes: Out what it produces, ErrOut progress,
// warnings and notes.
type ioStreams struct {
	Out, ErrOut io.Writer
}

// ioOf returns the writers of cmd.
func ioOf(cmd *cobra.Command) ioStreams {
	return ioStreams{Out: cmd.OutOrStdout(), ErrOut: cmd.ErrOrStderr()}
}

// storeNames returns the registered stores' names, sorted.
func storeNames() []string {
	var names []string
	for _, info := range certstore.Registered() {
		names = append(names, info.Name)
	}
	return names
}

// familyNames returns the names of the scenario families.
func familyNames() []string {
	var names []string
	for _, f := range scenarios.Families {
		names = append(names, f.Name)
	}
	return names
}

// defaultStores is every registered store (an author's too), naive and
// optimized first (the first is the baseline).
func defaultStores() []string {
	all := storeNames()
	first := slices.DeleteFunc([]string{"naive", "optimized"}, func(n string) bool { return !slices.Contains(all, n) })
	return append(first, slices.DeleteFunc(all, func(n string) bool { return slices.Contains(first, n) })...)
}

// lookupStores returns the named stores; flag names the flag in errors.
func lookupStores(flag string, names []string) ([]certstore.Info, error) {
	var infos []certstore.Info
	for _, name := range names {
		info, err := certstore.LookupFactory(strings.TrimSpace(name))
		if err != nil {
			return nil, usagef("%s: %v%s (a store of another module is measured by a certbench binary that registers it: "+
				"its own cmd/certbench calling cli.Main, as examples/mystore has)", flag, err, yamlfile.DidYouMean(strings.TrimSpace(name), storeNames()))
		}
		if slices.ContainsFunc(infos, func(i certstore.Info) bool { return i.Name == info.Name }) {
			return nil, usagef("%s: %q named twice", flag, info.Name)
		}
		infos = append(infos, info)
	}
	if len(infos) == 0 {
		return nil, usagef("%s: no store named (registered: %s)", flag, strings.Join(storeNames(), ", "))
	}
	return infos, nil
}

// storesFlag binds --stores to p with the completion of store names.
func storesFlag(cmd *cobra.Command, p *[]string, def []string, usage string) {
	cmd.Flags().StringSliceVar(p, "stores", def, usage)
	completeNames(cmd, "stores", storeNames)
}

// completeNames completes the flag's comma-separated list from
// candidates, leaving out names already given.
func completeNames(cmd *cobra.Command, flag string, candidates func() []string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		prefix, last := "", toComplete
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			prefix, last = toComplete[:i+1], toComplete[i+1:]
		}
		have := strings.Split(prefix, ",")
		var out []cobra.Completion
		for _, name := range candidates() {
			if strings.HasPrefix(name, last) && !slices.Contains(have, name) {
				out = append(out, prefix+name)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
}

// changed reports whether any of the named flags was given.
func changed(cmd *cobra.Command, names ...string) bool {
	return slices.ContainsFunc(names, cmd.Flags().Changed)
}
