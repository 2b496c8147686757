package results

import (
	"io"
	"os"
	"strings"
	"sync"
)

// CPUName returns the processor's name as the testing package writes it
// on the "cpu:" line of go test -bench, so that certbench's results and
// a go test -bench file of the same machine share one cpu configuration:
// the brand string the processor reports on amd64 and 386, else, on
// Linux, the model name of /proc/cpuinfo (see cpuinfoName); "unknown"
// when neither names it.
var CPUName = sync.OnceValue(func() string {
	if name := brandString(); name != "" {
		return name
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		buf := make([]byte, 512) // as the testing package: the first processor's lines
		n, _ := io.ReadFull(f, buf)
		if name := cpuinfoName(buf[:n]); name != "" {
			return name
		}
	}
	return "unknown"
})

// cpuinfoName returns the processor /proc/cpuinfo's text names, as the
// testing package reads it: the value after "model name: " (or "Model
// Name: "), the last one given, followed by " @ " and the "cpu MHz" value
// and "MHz" when the name states no GHz or MHz; "" when no line names it.
func cpuinfoName(text []byte) string {
	var model, mhz string
	for _, line := range strings.Split(string(text), "\n") {
		key, value, ok := strings.Cut(strings.TrimSuffix(line, "\r"), ": ")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "model name", "Model Name":
			model = value
		case "cpu MHz", "CPU MHz":
			mhz = value
		}
	}
	if model == "" || mhz == "" || strings.Contains(model, "GHz") || strings.Contains(model, "MHz") {
		return model
	}
	return model + " @ " + mhz + "MHz"
}
