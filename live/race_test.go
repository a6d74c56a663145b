//go:build race

package live

// raceEnabled: the race detector slows real-time replay several times over, so timing
// agreement is only tested without it.
const raceEnabled = true
