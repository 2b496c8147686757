package cost

import (
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
)

// modulePath is certbench's module: the path this package is built with
// starts with it, and the build information, when the binary has it, names
// it as the main module (a test binary's).
func TestModulePath(t *testing.T) {
	pkg := reflect.TypeFor[Info]().PkgPath()
	if !strings.HasPrefix(pkg, modulePrefix) {
		t.Fatalf("package path %s is not under module %s", pkg, modulePath)
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path != "" && bi.Main.Path != modulePath {
		t.Errorf("the test binary's main module is %s, want %s", bi.Main.Path, modulePath)
	}
	if got, want := ShortName(pkg+".Load"), strings.TrimPrefix(pkg, modulePrefix)+".Load"; got != want {
		t.Errorf("ShortName(%s.Load) = %s, want %s", pkg, got, want)
	}
	if !harnessPackages[modulePrefix+"bench"] || isStorePackage(modulePrefix+"bench") {
		t.Errorf("package bench, where capture runs the store, is not a harness package")
	}
}
