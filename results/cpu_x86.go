//go:build amd64 || 386

package results

import (
	"encoding/binary"
	"strings"
)

// cpuid executes the CPUID instruction for leaf eaxArg, subleaf ecxArg
// (cpu_x86.s).
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// brandString returns the processor brand string of CPUID leaves
// 0x80000002 to 0x80000004, as the testing package names an x86
// processor: up to its first NUL byte, leading spaces removed (trailing
// ones kept); "" when the processor has no brand string.
func brandString() string {
	if top, _, _, _ := cpuid(0x80000000, 0); top < 0x80000004 {
		return ""
	}
	var b []byte
	for leaf := uint32(0x80000002); leaf <= 0x80000004; leaf++ {
		eax, ebx, ecx, edx := cpuid(leaf, 0)
		for _, r := range [...]uint32{eax, ebx, ecx, edx} {
			b = binary.LittleEndian.AppendUint32(b, r)
		}
	}
	name, _, _ := strings.Cut(string(b), "\x00")
	return strings.TrimLeft(name, " ")
}
