//go:build linux

package probe

import (
	"syscall"
	"time"
)

// haveNanosleep: sleepPrecisely uses the kernel's high-resolution timer.
const haveNanosleep = true

// sleepPrecisely blocks for d with nanosleep(2), which the kernel ends within its timer
// slack (50 µs by default) instead of Go timers' whole milliseconds. It blocks the thread,
// not only the goroutine: the runtime hands the thread's P to other goroutines meanwhile.
func sleepPrecisely(d time.Duration) {
	if d <= 0 {
		return
	}
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var rest syscall.Timespec
		if err := syscall.Nanosleep(&ts, &rest); err != syscall.EINTR {
			return
		}
		ts = rest
	}
}
