package bench

import "github.com/certbench/certbench/results"

// operatorUnits are the units of process CPU time, the handshake
// workload, the peak-heap pass and the GC readings (results's, which
// define them) that the Writer declares a direction ("better=") for when
// it wrote them.
var operatorUnits = []string{
	results.UnitCPUNsPerOp,
	results.UnitInstructions, results.UnitEstCycles,
	results.UnitHandshakes,
	results.UnitHandshakeP50, results.UnitHandshakeP90, results.UnitHandshakeP99,
	results.UnitHandshakeP999, results.UnitHandshakeMax,
	results.UnitErrors,
	results.UnitCalmHandshakes, results.UnitCalmP99,
	results.UnitP50ChurnRatio, results.UnitP99ChurnRatio, results.UnitP999ChurnRatio,
	results.UnitThroughputChurnRatio,
	results.UnitPeak, results.UnitPeakPerCert, results.UnitMaxRSS,
	results.UnitGCCPU, results.UnitGCFraction, results.UnitGCCycles,
	results.UnitGCPauseP99, results.UnitGCPauseMax,
}
