package source

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func i64(n int64) *int64     { return &n }
func f64(f float64) *float64 { return &f }

// TestGoFailsafe: failsafe-go's retry layer at each call — attempts, classes, waits, the
// bound on all attempts, where the layer is set — against failsafe-go v0.9.8's defaults
// (golang.go's var block cites them), and a note wherever something is not read.
func TestGoFailsafe(t *testing.T) {
	const file = "testdata/go/failsafe/failsafe.go"
	noWait := &Backoff{ScheduleMS: []int64{0}, Jitter: "none"}
	tests := []struct {
		line int
		want *Retry
		note string // a note the call must carry; "" for none beyond the total's
	}{
		// NewWithDefaults: defaultMaxRetries 2, no delay, any error (no response) retried.
		{23, &Retry{Layer: libFailsafe, MaxAttempts: 3, On: []string{"connect", "timeout", "reset"}, File: file, Line: 22, Backoff: noWait}, ""},
		// NewRetryPolicyBuilder adds 429 and 5xx; WithMaxAttempts(4) is 4; Client.Timeout
		// bounds all attempts together.
		{32, &Retry{Layer: libFailsafe, MaxAttempts: 4, On: []string{"connect", "timeout", "reset", "429", "5xx"}, File: file, Line: 31,
			Backoff: &Backoff{ScheduleMS: []int64{0}, Jitter: "randomized", JitterFactor: f64(0.25)}, DeadlineMS: i64(10000)}, "Retry-After"},
		// WithBackoff(100 ms, 5 s) is factor 2.
		{37, &Retry{Layer: libFailsafe, MaxAttempts: 5, On: []string{"connect", "timeout", "reset"}, File: file, Line: 36,
			Backoff: &Backoff{InitialMS: i64(100), MaxMS: i64(5000), Multiplier: f64(2), Jitter: "none"}}, ""},
		// HandleIf with a function: attempts as written, classes the code's own.
		{48, &Retry{Layer: libFailsafe, MaxAttempts: 3, File: file, Line: 46, Backoff: &Backoff{ScheduleMS: []int64{1000}, Jitter: "none"}}, "the code's own"},
		// NewRequest: the request's context (3 s) bounds all attempts.
		{57, &Retry{Layer: libFailsafe, MaxAttempts: 2, On: []string{"connect", "timeout", "reset"}, File: file, Line: 57, Backoff: noWait, DeadlineMS: i64(3000)}, "once per attempt"},
		{62, &Retry{Layer: libFailsafe, File: file, Line: 61, Unresolved: "the policies rp are built where the reader cannot see"}, "cannot see"},
		{67, nil, ""},
		{74, &Retry{Layer: libFailsafe, On: []string{"connect", "timeout", "reset"}, File: file, Line: 73,
			Backoff: &Backoff{InitialMS: i64(1000), MaxMS: i64(30000), Multiplier: f64(1.5), Jitter: "none"}, Unresolved: "without limit: WithMaxRetries(-1)"}, "without limit"},
		// WithMaxAttempts(n) with n a parameter; the code's own DelayFunc; WithMaxDuration.
		{82, &Retry{Layer: libFailsafe, On: []string{"connect", "timeout", "reset"}, File: file, Line: 82, DeadlineMS: i64(20000), Unresolved: "n is computed at run time"}, "myDelay"},
	}
	calls := readDir(t, "failsafe")
	if len(calls) != len(tests) {
		t.Fatalf("%d calls, want %d", len(calls), len(tests))
	}
	for i, tt := range tests {
		c := calls[i]
		if c.Line != tt.line {
			t.Errorf("call %d at line %d, want %d", i, c.Line, tt.line)
			continue
		}
		if diff := cmp.Diff(tt.want, c.Retry); diff != "" {
			t.Errorf("%s: retry (-want +got):\n%s", c.Where(), diff)
		}
		if notes := strings.Join(c.Notes, "\n"); tt.note != "" && !strings.Contains(notes, tt.note) {
			t.Errorf("%s: notes %q do not say %q", c.Where(), c.Notes, tt.note)
		}
	}
}

// TestGoFailsafeLibrary: the layer names a library whose fix and defaults check can print.
func TestGoFailsafeLibrary(t *testing.T) {
	for _, l := range Go.Libraries {
		if l.Name == libFailsafe {
			if !strings.Contains(l.Defaults, "defaultMaxRetries 2") || l.Fix == "" {
				t.Errorf("failsafe-go library = %+v", l)
			}
			return
		}
	}
	t.Errorf("Go.Libraries has no %s", libFailsafe)
}
