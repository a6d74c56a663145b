//go:build linux

package timing

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID (linux/time.h).
const clockThreadCPUTime = 3

// ThreadWork runs f on one locked OS thread and returns the CPU time that thread spent in
// it: the work f did, which a loaded machine does not change (neighbours take wall time from
// f, not CPU time), unlike time.Since. ok is false where the thread's clock cannot be read.
// Work f hands to other goroutines is not counted.
func ThreadWork(f func()) (cpu time.Duration, ok bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, ok := threadCPU()
	f()
	after, ok2 := threadCPU()
	if !ok || !ok2 {
		return 0, false
	}
	return after - before, true
}

func threadCPU() (time.Duration, bool) {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
