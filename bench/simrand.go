package bench

// Under the simulated CPU (Options.Instrument Simulate) the Go runtime's
// random stream is lined up at initialization, so that every process of
// one binary holds the same map and hash seeds; elsewhere the import does
// nothing but read one environment variable. The runner imports it, not
// the contract (certstore): a store never depends on the simulated CPU.
import _ "github.com/certbench/certbench/internal/simrand"
