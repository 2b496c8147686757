package results

import "testing"

func TestOperatorUnits(t *testing.T) {
	for _, c := range []struct {
		unit, read string
		better     int
	}{
		{UnitHandshakes, UnitHandshakes, HigherIsBetter},
		{UnitHandshakeP99, UnitHandshakeP99Sec, LowerIsBetter},
		{UnitHandshakeMax, UnitHandshakeMaxSec, LowerIsBetter},
		{UnitErrors, UnitErrors, LowerIsBetter},
		{UnitP99ChurnRatio, UnitP99ChurnRatio, LowerIsBetter},
		{UnitThroughputChurnRatio, UnitThroughputChurnRatio, HigherIsBetter},
		{UnitPeak, UnitPeak, LowerIsBetter},
		{UnitPeakPerCert, UnitPeakPerCert, LowerIsBetter},
		{UnitMaxRSS, UnitMaxRSS, LowerIsBetter},
		{UnitGCCPU, UnitGCCPUSec, LowerIsBetter},
		{UnitGCFraction, UnitGCFraction, LowerIsBetter},
		{UnitGCCycles, UnitGCCycles, LowerIsBetter},
		{UnitGCPauseP99, UnitGCPauseP99Sec, LowerIsBetter},
	} {
		info, ok := Info(c.read)
		if !ok || info.Unit != c.unit || info.Better != c.better || info.Title == "" {
			t.Errorf("Info(%q) = %+v, %v; want unit %s, better %d, a title", c.read, info, ok, c.unit, c.better)
		}
	}
}
