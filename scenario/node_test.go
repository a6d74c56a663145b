package scenario

import (
	"errors"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestParseDocument checks the one YAML document loader scenario and check files share:
// each problem is an *Error at the right place, in the words of the format.
func TestParseDocument(t *testing.T) {
	words := DocumentWords{Empty: "nothing here", Second: "one document only"}
	tests := []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"empty", "", 0, 0, "nothing here"},
		{"only comments", "# just a note\n", 0, 0, "nothing here"},
		{"second document", "a: 1\n---\nb: 2\n", 2, 1, "one document only"},
		{"syntax error", "a: 1\nb: [\n", 2, 1, "did not find expected node content"},
		{"syntax error in a second document", "a: 1\n---\nb: [\n", 3, 1, "did not find expected node content"},
		// yaml.v3 names the enclosing block's 0-based line (here 0: none) for parser errors.
		{"misindented key", "a:\n  b: 1\n  c: 2\n d: 3\n", 4, 1, "did not find expected key"},
		{"unclosed flow mapping", "a:\n  b: {c: 1\n  d: 2\n", 2, 1, "did not find expected ',' or '}'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDocument([]byte(tt.in), "f.yaml", words)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("want an *Error, got %v", err)
			}
			if e.File != "f.yaml" || e.Line != tt.line || e.Col != tt.col || e.Msg != tt.msg {
				t.Errorf("got %s:%d:%d %q, want f.yaml:%d:%d %q", e.File, e.Line, e.Col, e.Msg, tt.line, tt.col, tt.msg)
			}
		})
	}
	root, err := ParseDocument([]byte("a: 1\n"), "f.yaml", words)
	if err != nil || root.Kind != yaml.MappingNode || root.Line != 1 {
		t.Fatalf("root %+v, %v: want the mapping inside the document", root, err)
	}
}
