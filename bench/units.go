package bench

import "github.com/certbench/certbench/resultfmt"

// operatorUnits are the units of process CPU time, the handshake
// workload, the peak-heap pass and the GC readings (resultfmt's, which
// define them) that the Writer declares a direction ("better=") for when
// it wrote them.
var operatorUnits = []string{
	resultfmt.UnitCPUNsPerOp,
	resultfmt.UnitHandshakes,
	resultfmt.UnitHandshakeP50, resultfmt.UnitHandshakeP90, resultfmt.UnitHandshakeP99,
	resultfmt.UnitHandshakeP999, resultfmt.UnitHandshakeMax,
	resultfmt.UnitErrors,
	resultfmt.UnitCalmHandshakes, resultfmt.UnitCalmP99,
	resultfmt.UnitP50ChurnRatio, resultfmt.UnitP99ChurnRatio, resultfmt.UnitP999ChurnRatio,
	resultfmt.UnitThroughputChurnRatio,
	resultfmt.UnitPeak, resultfmt.UnitPeakPerCert, resultfmt.UnitMaxRSS,
	resultfmt.UnitGCCPU, resultfmt.UnitGCFraction, resultfmt.UnitGCCycles,
	resultfmt.UnitGCPauseP99, resultfmt.UnitGCPauseMax,
}
