//go:build unix

package live

import "syscall"

// fdBudget is how many attempts the process can hold open at once: each in-process attempt
// holds two descriptors (client and server side), and some are kept for everything else.
// Go raises the soft RLIMIT_NOFILE to the hard limit at start-up on Linux.
func fdBudget() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur < 256 {
		return 64
	}
	return int(min((rl.Cur-128)/2, 1<<20))
}
