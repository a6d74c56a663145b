package cmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/storm"
)

// A storm expected to take longer than announceLongerThan says so on stderr before it runs,
// with what it runs on; a short one, or -q, says nothing.
func TestAnnounceStorm(t *testing.T) {
	m := storm.DefaultModel()
	sc := m.Scenario(storm.Mitigations(m.Attempts, time.Second))
	for _, tc := range []struct {
		d     time.Duration
		quiet bool
		want  string
	}{
		{25 * time.Second, false, "about 25 s (6 policies and their stable-rate searches on 2 cores)"},
		{5 * time.Second, false, ""},
		{25 * time.Second, true, ""},
	} {
		var errOut bytes.Buffer
		s := &report.IOStreams{Out: &bytes.Buffer{}, ErrOut: &errOut, ErrWidth: 100, Quiet: tc.quiet}
		announceStorm(s, sc, storm.Cost{Time: tc.d}, true, 2)
		if got := strings.TrimSpace(errOut.String()); got != tc.want {
			t.Errorf("%v quiet %v: stderr %q, want %q", tc.d, tc.quiet, got, tc.want)
		}
	}
}
