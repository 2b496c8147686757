package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
	"github.com/spf13/cobra"
)

// listFormats are the output formats of list.
var listFormats = []string{"text", "json"}

// ListOptions are the options of certbench list.
type ListOptions struct {
	IO IO
	// Format is text (for people) or json (for scripts).
	Format string
}

func newListCmd(runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the registered stores and the scenarios",
		Long: `list prints the stores registered in this binary and the scenarios (* marks
the default set, which run, compare and profile --all use). The scenario
families of certbench sweep are listed in its help and in --format json.

--format json prints one object for scripts:
  {"stores":    [{"name", "description"}],
   "scenarios": [{"name", "description", "kind", "pool_size", "ops", "default"}],
   "families":  [{"name", "description", "kind"}]}`,
		Example: `  certbench list
  certbench list --format json | jq -r '.scenarios[] | select(.default) | .name'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.IO = ioOf(cmd)
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
}

type listFamily struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Kind        string `json:"kind"`
}

// runList prints the stores, scenarios and families.
func runList(_ context.Context, opts *ListOptions) error {
	switch opts.Format {
	case "json":
		doc := listDoc{Stores: []listStore{}}
		for _, info := range certstore.Registered() {
			doc.Stores = append(doc.Stores, listStore{info.Name, info.Description})
		}
		for _, s := range scenarios.Catalogue {
			doc.Scenarios = append(doc.Scenarios, listScenario{s.Name, s.Description, string(s.Kind), s.Pool.Count, s.Ops, s.Default})
		}
		for _, f := range scenarios.Families {
			doc.Families = append(doc.Families, listFamily{f.Name, f.Description, string(f.Kind)})
		}
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	case "text":
	default:
		return checkFormat(opts.Format, listFormats)
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
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
	return tw.Flush()
}
