package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
	"github.com/spf13/cobra"
)

func newListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the registered stores and the scenarios",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
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
		},
	}
}
