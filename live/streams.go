package live

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/scenario"
)

// The live driver and server draw from the simulator's seeded streams (sim.ArrivalRand,
// sim.JitterRand, sim.SeedTarget), so a live run sees the simulator's arrivals and, per
// (logical request, attempt), its connect time, fault draw and service time: common random
// numbers with `patience replay` without --live.

// AttemptHeader carries the attempt index within a logical request (0, 1, ...), so the
// server can take that attempt's draws from the simulator's stream.
const AttemptHeader = "Patience-Attempt"

// targetDraws are the target's random choices for one attempt, in the simulator's order
// (see sim streams.go): connect time, the fault draw, then the service time.
type targetDraws struct {
	connect time.Duration
	u       float64
	rng     *rand.Rand // continues the stream for the service time
}

// attemptDraws derives the target draws of attempt j of logical request id.
func attemptDraws(sc *scenario.Scenario, seed int64, id uint64, j uint64) targetDraws {
	var pcg rand.PCG
	scenario.SeedTarget(&pcg, seed, id, j)
	r := rand.New(&pcg)
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
