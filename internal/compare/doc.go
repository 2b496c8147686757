// Package compare turns certbench result files into comparison tables
// with real statistics, in the manner of benchstat, and renders them as
// text, Markdown, CSV or JSON.
//
// # Pipeline
//
// Package results reads the files (results.Load, results.Read) into a
// results.Set: per benchmark and configuration, the values of each unit,
// with the input's label under the ".file" key and the "Unit ...
// assume=exact" metadata. Build groups the measurements with golang.org/x/perf/benchproc projections into one
// Table per unit, with rows (Options.Row, default "/scenario") and columns
// (Options.Col, default "/store"). FileOptions instead compares input
// files: rows "/scenario,/store", columns ".file", so a base run can be
// compared with a head run. Results without certbench's name keys (plain
// go test -bench output) are grouped as benchstat groups them: rows by
// ".fullname", columns by ".file". Columns appear in input order unless
// Options.Columns gives an explicit order; the first column is the
// baseline.
//
// # Statistics
//
// Each Cell holds a golang.org/x/perf/benchmath Sample and its Summary.
// Units declared "assume=exact" (allocs/op, B/op and goroutines in
// certbench output) use benchmath.AssumeExact: the center is the most
// common value and any difference between centers is significant. Other
// units use benchmath.AssumeNothing: the center is the median, with a
// distribution-free confidence interval at Options.Confidence (default
// 95%), and cells are compared with the baseline by a Mann-Whitney U
// test; a difference is significant if p < Options.Alpha (default 0.05).
// Each non-baseline Cell's Delta carries the benchmath.Comparison (P,
// sample sizes, warnings), the ratio of centers and the verdict, so that
// other tools (such as a regression gate) can reuse them. A U test needs
// at least 4 samples per side to ever reach p < 0.05, and a 95% interval
// needs at least 6; benchmath's warnings about this are kept on the cells
// and collected in Report.Warnings. A geomean row summarizes each column
// over the rows with positive results in every column.
//
// Text and Markdown show each value as results.Format does, scaled on its
// own: "190 ms" sec/op, "850 KiB" B/op, "1,184" allocs/op.
//
// # Errors
//
// results.Load checks every value before any statistics (benchmath's
// Mann-Whitney U test does not terminate on NaN). Build fails with
// ErrNothingInCommon if the columns share no benchmarks, and with
// ErrNoResults if the filter leaves nothing.
//
// # JSON schema
//
// WriteJSON writes one object. Field names are stable; raw numbers are in
// the tidied unit (seconds for sec/op, bytes for B/op); numbers that would
// be infinite (an unbounded interval, a ratio to a zero baseline) are
// null. "_text" and "text" fields hold the strings the text renderer
// shows.
//
//	{
//	  "schema": "certbench.compare/v1",
//	  "options": {"row": "/scenario", "col": "/store", "filter": "*",
//	              "columns": [], "alpha": 0.05, "confidence": 0.95},
//	  "config": [{"key": "goos", "values": ["linux"]}, ...],
//	  "columns": ["naive", "optimized"],          // baseline first
//	  "tables": [{
//	    "unit": "sec/op",
//	    "assumption": "median",                   // or "exact"
//	    "better": "lower",                        // "lower", "higher" or ""
//	    "row_header": "scenario",                 // row field names
//	    "rows": [{
//	      "label": "rotate-10-of-100",
//	      "key": {"/scenario": "rotate-10-of-100"},
//	      "cells": [                              // one per column; null if none
//	        {"column": "naive", "n": 6,
//	         "values": [0.189, ...],              // sorted samples
//	         "center": 0.1902, "lo": 0.1885, "hi": 0.1921, // lo/hi may be null
//	         "confidence": 0.96875,               // actual interval level
//	         "text": "190 ms ± 1%", "center_text": "190 ms", "ci_text": "1%",
//	         "warnings": [],
//	         "delta": null},                      // null in the baseline column
//	        {"column": "optimized", ...,
//	         "delta": {"base": 0.1902, "value": 0.0123,
//	                   "ratio": 0.0647, "percent": -93.53, // null if base is 0
//	                   "p": 0.0022, "alpha": 0.05, "n_base": 6, "n": 6,
//	                   "significant": true,
//	                   "text": "-93.53%",         // "~" if not significant
//	                   "test": "p=0.002 n=6",     // "n=6" for exact units
//	                   "warnings": []}}]}],
//	    "geomean": [                              // [] if none; one per column
//	      {"column": "naive", "rows": 3, "center": 0.11, "ratio": null,
//	       "percent": null, "text": "111 ms", "delta_text": "", "warnings": []},
//	      {"column": "optimized", "rows": 3, "center": 0.0136, "ratio": 0.1225,
//	       "percent": -87.75, "text": "13.6 ms", "delta_text": "-87.75%",
//	       "warnings": []}]
//	  }, ...],
//	  "warnings": [...]                           // same as Report.Warnings
//	}
package compare
