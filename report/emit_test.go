package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/profile"
)

// emitFixture is a probe result with two emitted texts, one in the report and one written
// to a file: hand-made, so the goldens test rendering only (package emit's own goldens
// test the texts).
func emitFixture() *profile.Profile {
	p := probeFixture()
	p.Emit = []profile.Emission{
		{Target: "requests", Kind: "code", Language: "python",
			Text:     "import requests\n\n# connect: 1.1 s to set up the connection; read: 250 ms between two reads\nr = requests.get(URL, timeout=(1.1, 0.25))\n",
			Settings: []profile.EmitSetting{{Knob: "timeout", Value: "(1.1, 0.25)", Bounds: "the connection set-up, then each silence"}},
			Missing:  []string{"requests has no total timeout: the program runs each attempt under a 300 ms deadline of its own"}},
		{Target: "nginx", Kind: "config", Language: "nginx", Path: "api.conf",
			Text:     "location / {\n    proxy_read_timeout 250ms;  # between two reads\n}\n",
			Settings: []profile.EmitSetting{{Knob: "proxy_read_timeout", Value: "250ms", Bounds: "each silence between two reads of the upstream's response"}},
			Missing:  []string{"nginx has no total per upstream request"}},
	}
	return p
}

func TestEmitGoldens(t *testing.T) {
	for _, tc := range []struct {
		name   string
		render func(*bytes.Buffer) error
	}{
		{"emit_text", func(b *bytes.Buffer) error { return ProbeText(b, emitFixture(), Options{Width: 80}) }},
		{"emit_markdown", func(b *bytes.Buffer) error { return ProbeMarkdown(b, emitFixture(), Options{}) }},
		{"emit_alone", func(b *bytes.Buffer) error { return EmitText(b, emitFixture().Emit, Options{Width: 80}) }},
	} {
		var b bytes.Buffer
		if err := tc.render(&b); err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, tc.name, b.Bytes())
	}
}

// TestEmitHTMLKeepsTextVerbatim: the HTML report holds the program as written, escaped once.
func TestEmitHTMLKeepsTextVerbatim(t *testing.T) {
	var b bytes.Buffer
	p := emitFixture()
	p.Emit[0].Text = "if a < b and c > d:\n    pass\n"
	if err := ProbeHTML(&b, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<pre class="emit" data-lang="python"><code>if a &lt; b and c &gt; d:`+"\n    pass\n</code></pre>") {
		t.Errorf("the program is not in the page verbatim:\n%s", b.String())
	}
}
