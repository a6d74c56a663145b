package cmd

import (
	"context"
	"strings"
	"testing"
)

// TestAdviseHelpNginxPerRequest: advise's help says what advise/nginx.go does — one record
// per request, the attempts counted apart — not the earlier "each upstream attempt is a
// sample" (issue 24 leftovers; docs/commands.md's "Requests, not attempts").
func TestAdviseHelpNginxPerRequest(t *testing.T) {
	code, out, errOut := runCmd(t, context.Background(), "", "advise", "--help")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	flat := strings.Join(strings.Fields(out), " ")
	if strings.Contains(flat, "each upstream attempt is a sample") {
		t.Error("help still says each upstream attempt is a sample")
	}
	for _, want := range []string{"A line is one request: its status is $status", "attempt that answered it", "are counted apart"} {
		if !strings.Contains(flat, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}
