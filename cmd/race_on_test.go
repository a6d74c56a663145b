//go:build race

package cmd

// raceEnabled: the race detector slows the simulator 10–20×; a test that needs a run long
// enough to be seen (a progress bar drawn) asks for less work under it, not a weaker check.
const raceEnabled = true
