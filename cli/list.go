package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
	"github.com/spf13/cobra"
)

// listFormats are the output formats of list.
var listFormats = []string{"text", "json"}

// ListOptions are the options of certbench list.
type listOptions struct {
	ioStreams ioStreams
	// Format is text (for people) or json (for scripts).
	Format string
	// ScenarioFileFlags list (and so check) the scenario files given as
	// arguments too: their definitions and hashes.
	scenarioFileFlags
}

func newListCmd(runF func(context.Context, *listOptions) error) *cobra.Command {
	opts := &listOptions{}
	cmd := &cobra.Command{
		Use:   "list [SCENARIO.yaml...]",
		Short: "List the registered stores and the scenarios",
		Long: `list prints the stores registered in this binary, which run, compare and
sweep measure unless --stores names some (naive, when registered, first:
the baseline), and the scenarios (* marks the default set, which run,
compare and profile --all use). The scenario
families of certbench sweep are listed in its help and in --format json.
The scenarios of the files given follow, each with its
definition and the hash results record of it: a way to check a file
(errors name file:line:column, exit 2). The format: docs/scenarios.md.

--format json prints one object for scripts:
  {"stores":    [{"name", "description"}],
   "scenarios": [{"name", "description", "kind", "pool_size", "ops", "default",
                  "hash", "from_file"}],
   "families":  [{"name", "description", "kind"}]}`,
		Example: `  certbench list
  certbench list --format json | jq -r '.scenarios[] | select(.default) | .name'
  certbench list my-scenario.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ioStreams, opts.Files = ioOf(cmd), args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runList(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", formatUsage("output format", listFormats))
	return cmd
}

// listDoc is the document of list --format json.
type listDoc struct {
	Stores    []listStore    `json:"stores"`
	Scenarios []listScenario `json:"scenarios"`
	Families  []listFamily   `json:"families"`
}

type listStore struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type listScenario struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Kind        string `json:"kind"`
	PoolSize    int    `json:"pool_size"`
	Ops         int    `json:"ops"`
	Default     bool   `json:"default"`
	Hash        string `json:"hash"`
	FromFile    bool   `json:"from_file"`
}

type listFamily struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Kind        string `json:"kind"`
}

// runList prints the stores, scenarios and families.
func runList(_ context.Context, opts *listOptions) error {
	if err := checkFormat(opts.Format, listFormats); err != nil {
		return err
	}
	files, err := opts.scenarioFileFlags.withFiles(nil, &certsFlags{})
	if err != nil {
		return err
	}
	switch opts.Format {
	case "json":
		doc := listDoc{Stores: []listStore{}}
		for _, info := range certstore.Registered() {
			doc.Stores = append(doc.Stores, listStore{info.Name, info.Description})
		}
		for i, s := range slices.Concat(scenarios.Catalogue, files) {
			fromFile, size := i >= len(scenarios.Catalogue), s.Pool.Count
			if s.Certs != nil {
				size = len(s.Certs.Certs)
			}
			doc.Scenarios = append(doc.Scenarios, listScenario{s.Name, s.Description, string(s.Kind), size, s.Ops, s.Default && !fromFile, s.Hash(), fromFile})
		}
		for _, f := range scenarios.Families {
			doc.Families = append(doc.Families, listFamily{f.Name, f.Description, string(f.Kind)})
		}
		enc := json.NewEncoder(opts.ioStreams.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	tw := tabwriter.NewWriter(opts.ioStreams.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STORES")
	for _, info := range certstore.Registered() {
		fmt.Fprintf(tw, "  %s\t%s\n", info.Name, info.Description)
	}
	fmt.Fprintln(tw, "\nSCENARIOS (* = default set)")
	for _, s := range scenarios.Catalogue {
		mark := " "
		if s.Default {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s %s\t%s\n", mark, s.Name, s.Description)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, s := range files {
		if i == 0 {
			fmt.Fprintln(opts.ioStreams.Out, "\nSCENARIO FILES")
		}
		fmt.Fprintf(opts.ioStreams.Out, "  %s  %s\n    hash %s (scenario-hash.%s in results) of:\n", s.Name, s.Description, s.Hash(), s.Name)
		for _, line := range strings.Split(strings.TrimSpace(s.Definition()), "\n") {
			fmt.Fprintf(opts.ioStreams.Out, "      %s\n", line)
		}
	}
	return nil
}
