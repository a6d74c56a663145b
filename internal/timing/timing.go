// Package timing gates the tests that measure wall-clock accuracy: latency quantiles against
// targets of known latency, achieved rates, live replays agreeing with the simulator. On a
// loaded machine such a test fails for reasons that are not bugs (timers fire late, the
// scheduler holds a goroutine), so a plain `go test ./...` skips it; .ci/run sets
// PATIENCE_TIMING=1 for the step that runs them without the race detector. Import it only
// from tests.
package timing

import (
	"os"
	"testing"
)

// Env is the environment variable that turns the timing tests on when set to 1.
const Env = "PATIENCE_TIMING"

// Enabled reports whether PATIENCE_TIMING=1 asks for the timing tests.
func Enabled() bool { return os.Getenv(Env) == "1" }

// Require skips t unless PATIENCE_TIMING=1, saying how to run it.
func Require(t testing.TB) {
	t.Helper()
	if !Enabled() {
		t.Skipf("measures wall-clock accuracy, which a busy machine distorts; run with %s=1 (.ci/run does, without -race)", Env)
	}
}
