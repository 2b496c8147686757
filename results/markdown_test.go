package results

import "testing"

func TestMarkdown(t *testing.T) {
	if got := EscapeMarkdown("a|b *c* _d_ `e` <f> [g]"); got != "a\\|b \\*c\\* \\_d\\_ \\`e\\` &lt;f&gt; \\[g\\]" {
		t.Errorf("EscapeMarkdown = %s", got)
	}
}
