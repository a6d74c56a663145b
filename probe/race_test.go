//go:build race

package probe_test

// raceEnabled: the race detector slows every request 5–10×, which turns latency accuracy
// into a measure of the detector; accuracy tests skip under it (they run in plain go test).
const raceEnabled = true
