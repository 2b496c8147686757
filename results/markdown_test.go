package results

import "testing"

func TestMarkdown(t *testing.T) {
	if got := EscapeMarkdown("a|b *c* _d_ `e` <f> [g]"); got != "a\\|b \\*c\\* \\_d\\_ \\`e\\` &lt;f&gt; \\[g\\]" {
		t.Errorf("EscapeMarkdown = %s", got)
	}
	for in, want := range map[string]string{
		"crypto/x509.parse": "`crypto/x509.parse`",
		"a|b":               "`a\\|b`",
		"a`b":               "``a`b``",
		"`x":                "`` `x ``",
	} {
		if got := CodeSpan(in); got != want {
			t.Errorf("CodeSpan(%q) = %s, want %s", in, got, want)
		}
	}
}
