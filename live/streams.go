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
	// seed, id and j name the attempt, for the generator of its stream (streamRand).
	seed  int64
	id, j uint64
}

// attemptDraws derives the target draws of attempt j of logical request id.
func attemptDraws(sc *scenario.Scenario, seed int64, id uint64, j uint64) targetDraws {
	var pcg rand.PCG
	scenario.SeedTarget(&pcg, seed, id, j)
	r := rand.New(&pcg)
	c := sc.Target.Connect.Sample(r)
	return targetDraws{connect: c, u: r.Float64(), rng: r, seed: seed, id: id, j: j}
}

// streamSalt sets a stream's draws apart from its attempt's, as the simulator does
// (sim.StreamSalt; TestStreamSaltIsTheSimulators): attempt j's stream draws from the target
// generator of (seed, request, j | streamSalt).
const streamSalt = 1 << 32

// streamRand is the generator of the attempt's stream: the simulator's for the same
// (seed, request, attempt), so a live stream has the events, drop, stall, first event and
// gaps the simulated one has.
func (d *targetDraws) streamRand() *rand.Rand {
	var pcg rand.PCG
	scenario.SeedTarget(&pcg, d.seed, d.id, d.j|streamSalt)
	return rand.New(&pcg)
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
