package certstore

// Under certbench's simulated CPU (certbench run --instrument simulate),
// the Go runtime's random stream is lined up before any store initializes,
// so that a store seeding its hash tables at package initialization gets
// the same seed in every process; elsewhere the import does nothing but
// read one environment variable. Every store imports this package, so its
// imports initialize first.
import _ "github.com/certbench/certbench/internal/simrand"
