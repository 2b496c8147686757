package cost

// modulePath is certbench's module path, which ShortName drops; a test
// checks it against the path this package is built with.
const (
	modulePath   = "github.com/certbench/certbench"
	modulePrefix = modulePath + "/"
)

// harnessPackages are certbench's packages whose frames can start a stack
// without being the store's.
var harnessPackages = map[string]bool{modulePrefix + "bench": true, modulePrefix + "cli": true}
