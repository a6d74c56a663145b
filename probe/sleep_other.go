//go:build !linux

package probe

import "time"

// haveNanosleep: there is no high-resolution sleep here.
const haveNanosleep = false

// sleepPrecisely is never called where haveNanosleep is false; it sleeps on a Go timer.
func sleepPrecisely(d time.Duration) { time.Sleep(d) }
