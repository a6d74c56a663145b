package live

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/scenario"
)

// The live driver and server draw from the same seeded streams as the simulator
// (scenario/sim engine.go: splitmix64 over seed ^ salt), so a live run sees the simulator's
// arrivals and, per (logical request, attempt), its connect time, fault draw and service
// time. The constants are copied from scenario/sim, which keeps them unexported; if they
// drift, live runs stay correct but lose common random numbers with the simulator.
const (
	saltArrivals = 0x61727269766c7321
	saltTarget   = 0x7461726765747321
	saltJitter   = 0x6a69747465727321
)

// AttemptHeader carries the attempt index within a logical request (0, 1, ...), so the
// server can take that attempt's draws from the simulator's stream.
const AttemptHeader = "Patience-Attempt"

// mix is splitmix64's finaliser, as in scenario/sim.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// targetDraws are the target's random choices for one attempt, in the simulator's order:
// connect time, the fault draw, then the service time.
type targetDraws struct {
	connect time.Duration
	u       float64
	rng     *rand.Rand // continues the stream for the service time
}

// attemptDraws derives the target draws of attempt j of logical request id.
func attemptDraws(sc *scenario.Scenario, seed int64, id uint64, j uint64) targetDraws {
	r := rand.New(rand.NewPCG(mix(uint64(seed)^saltTarget^mix(id)), j))
	c := sc.Target.Connect.Sample(r)
	return targetDraws{connect: c, u: r.Float64(), rng: r}
}

// parseLogicalID reads "TAG:N" or "N" and returns N; ok = false when it is not a number.
func parseLogicalID(v string) (tag string, id uint64, ok bool) {
	num := v
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		tag, num = v[:i], v[i+1:]
	}
	n, err := strconv.ParseUint(num, 10, 64)
	return tag, n, err == nil
}
