//go:build !unix

package timing

import "time"

// CPUTime is 0 where the process's CPU time is not read (benchmarks then report no
// per-CPU-second figure).
func CPUTime() time.Duration { return 0 }
