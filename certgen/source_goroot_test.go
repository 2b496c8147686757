package certgen

import (
	"os/exec"
	"strings"
)

func runGoEnvGOROOT() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	return strings.TrimSpace(string(out)), err
}
