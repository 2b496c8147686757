package callgrind

import (
	"strings"
	"testing"
)

func TestCopyWithout(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{rdtscpWarning + "\n" + rdtscpWarning + "\nresults\r\033[Kprogress\n", "results\r\033[Kprogress\n"},
		{"first\n" + rdtscpWarning + "\n", "first\n" + rdtscpWarning + "\n"}, // only at the start
		{"", ""},
		{rdtscpWarning, ""}, // cut short: nothing else to copy
		{"GODEBUG", "GODEBUG"},
	} {
		var b strings.Builder
		copyWithout(&b, strings.NewReader(tc.in), rdtscpWarning)
		if b.String() != tc.want {
			t.Errorf("copyWithout(%q) = %q, want %q", tc.in, b.String(), tc.want)
		}
	}
}
