package advise

import (
	"context"
	"strings"
	"testing"
)

// TestProfileCapped: --format profile reads at most input.MaxProfile (16 MiB, docs/commands.md's cap on
// a profile, the one probe --merge applies); it read 256 MiB.
func TestProfileCapped(t *testing.T) {
	doc := `{"schema":"x"}` + strings.Repeat(" ", 17<<20)
	_, err := Run(context.Background(), Options{Files: []string{"-"}, Stdin: strings.NewReader(doc), Format: FormatProfile})
	if err == nil || !strings.Contains(err.Error(), "(stdin): larger than 16 MiB, the most a saved profile may be") {
		t.Errorf("err = %v, want (stdin): larger than 16 MiB", err)
	}
}
