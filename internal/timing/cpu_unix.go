//go:build unix

package timing

import (
	"syscall"
	"time"
)

// CPUTime is the process's user + system CPU time so far (0 if the system will not say):
// the fair figure for a benchmark on a shared machine, where wall time includes waiting for
// a core.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
