package report

// TEMPORARY until held-bench's results/units.go lands.
const (
	unitHeldPerGen           = "held-B/gen"
	unitHeldGoroutinesPerGen = "held-goroutines/gen"
)
