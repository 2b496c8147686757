package table_test

import (
	"os"

	"github.com/certbench/certbench/internal/table"
)

func Example() {
	t := table.New("",
		table.Column{Name: "scenario"},
		table.Column{Group: "naive", Name: "sec/op", Align: table.Right},
		table.Column{Group: "optimized", Name: "sec/op", Align: table.Right},
		table.Column{Group: "optimized", Name: "vs base", Align: table.Right},
	)
	t.Add(table.Cell{Text: "rotate"}, table.Cell{Text: "190 ms", Interval: "1%"},
		table.Cell{Text: "12.3 ms", Interval: "2%"}, table.Cell{Text: "-93.53%", Class: table.Better})
	t.Add(table.Cell{Text: "lookup"}, table.Cell{Text: "3.45 ms", Interval: "2%"},
		t.Note(table.Cell{Text: "3.32 ms"}, "3 samples: no interval"), table.Cell{Text: "~"})
	table.WriteText(os.Stdout, &table.Page{Tables: []*table.Table{t}})
	// Output:
	//          │    naive     │        optimized        │
	// scenario │    sec/op    │     sec/op      vs base │
	// rotate      190 ms ± 1%   12.3 ms ± 2%    -93.53%
	// lookup     3.45 ms ± 2%   3.32 ms      ¹        ~
	// ¹ 3 samples: no interval
}
