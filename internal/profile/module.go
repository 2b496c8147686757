package profile

// modulePath is certbench's module path. Function names in the profiles
// of certbench's own code start with it; ShortName drops it. It is a
// constant rather than derived from this package's own path so that it
// stays right wherever the package sits in the module (a test checks it
// against the path this package is built with).
const modulePath = "github.com/certbench/certbench"

// modulePrefix is modulePath with the slash that follows it in a package
// path.
const modulePrefix = modulePath + "/"

// harnessPackages are certbench's packages that run stores rather than
// being one, whose frames can start a stack in a profile certbench
// captured: the runner (bench, where capture lives; older releases
// captured in profile and internal/profile) and the commands (cli).
var harnessPackages = map[string]bool{
	modulePrefix + "bench":            true,
	modulePrefix + "cli":              true,
	modulePrefix + "profile":          true,
	modulePrefix + "internal/profile": true,
}
