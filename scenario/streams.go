package scenario

import (
	"math/rand/v2"
	"time"
)

// This file is the one definition of the seeded streams and the target-model rules that the
// live driver and server (live) share with the simulator (sim), so a live run sees the
// simulator's arrivals, jitter and, per (logical request, attempt), its target draws
// (common random numbers) Change a rule here and both
// follow; a copy elsewhere would silently stop matching.
//
// The target draws of one attempt come from the generator SeedTarget seeds, in this order:
//  1. the connect time (target.connect);
//  2. one uniform for the fault (PickFault over the phase in force when the attempt arrives,
//     PhaseAt(arrival = start + connect));
//  3. the service time from PhaseLatency of that phase;
//  4. with target.conflicts: single-row, a second draw from the same distribution (the
//     write time; the live server does not model it).

// Stream salts: each stream of randomness is derived from the seed and its own salt.
const (
	saltArrivals = 0x61727269766c7321
	saltTarget   = 0x7461726765747321
	saltJitter   = 0x6a69747465727321
)

// mix is splitmix64's finaliser: it turns (seed, salt, index) into well-spread PCG seeds.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// ArrivalRand returns the arrival stream of seed. An open model draws from it the first
// inter-arrival gap (ExpFloat64 / rate), then per arrival its client (IntN(clients)) and the
// next gap.
func ArrivalRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(mix(uint64(seed)^saltArrivals), 1))
}

// JitterRand returns client's own stream of seed, handed to policy.Call.Next for backoff
// jitter.
func JitterRand(seed int64, client int) *rand.Rand {
	p := new(rand.PCG)
	SeedJitter(p, seed, client)
	return rand.New(p)
}

// SeedJitter seeds p to client's jitter stream of seed: the source of JitterRand, which the
// simulator keeps by value per client.
func SeedJitter(p *rand.PCG, seed int64, client int) {
	p.Seed(mix(uint64(seed)^saltJitter), uint64(client))
}

// SeedTarget reseeds p to the target stream of attempt (0, 1, ...) of logical request id
// (its arrival index) under seed; see the file comment for the order of the draws. It
// reseeds instead of allocating so the simulator's hot path stays allocation-free.
func SeedTarget(p *rand.PCG, seed int64, id, attempt uint64) {
	p.Seed(mix(uint64(seed)^saltTarget^mix(id)), attempt)
}

// PhaseAt is the index of the phase of sc in force at scenario time t, -1 for none (phases
// do not overlap; Load rejects that).
func (sc *Scenario) PhaseAt(t time.Duration) int {
	for i := range sc.Target.Phases {
		ph := &sc.Target.Phases[i]
		if t >= ph.At && t < ph.End() {
			return i
		}
	}
	return -1
}

// DownAt says whether the target fails every attempt at scenario time t: a stall is in force,
// or a phase whose faults take 100% of attempts. A request that arrives then and fails was
// failed by the dependency, not by the caller's policy (replay.PolicyResult.FailedWhileDown).
func (sc *Scenario) DownAt(t time.Duration) bool {
	i := sc.PhaseAt(t)
	if i < 0 {
		return false
	}
	ph := &sc.Target.Phases[i]
	if ph.Stall {
		return true
	}
	total := 0.0
	for _, f := range ph.Faults {
		total += f.Percent
	}
	return total >= 1-1e-9
}

// PickFault maps the uniform draw u to the index of a fault of ph, -1 for none: the faults
// are tried in order, each taking its percent of [0, 1). A nil ph has no faults.
func (ph *Phase) PickFault(u float64) int {
	if ph == nil {
		return -1
	}
	acc := 0.0
	for i, f := range ph.Faults {
		acc += f.Percent
		if u < acc {
			return i
		}
	}
	return -1
}

// PhaseLatency is the service-time distribution in force in phase (an index of
// sc.Target.Phases, -1 for none): the phase's latency when it sets one, else the base one.
func (sc *Scenario) PhaseLatency(phase int) *Distribution {
	if phase >= 0 && sc.Target.Phases[phase].Latency != nil {
		return sc.Target.Phases[phase].Latency
	}
	return &sc.Target.Latency
}

// Stalls are the windows [start, end) of a scenario's stall phases, sorted by start: the
// target serves nothing in them while requests keep arriving.
type Stalls [][2]time.Duration

// Stalls returns the stall windows of sc.
func (sc *Scenario) Stalls() Stalls {
	var s Stalls
	for _, ph := range sc.Target.Phases {
		if ph.Stall {
			s = append(s, [2]time.Duration{ph.At, ph.End()})
		}
	}
	// Insertion sort: a handful of phases, and stable.
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j][0] < s[j-1][0]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// Advance returns when work of length d started at scenario time t finishes, pausing
// through the stall windows. Work that would end exactly when a stall starts ends then; work
// of length 0 started at a stall's start waits for its end.
func (s Stalls) Advance(t, d time.Duration) time.Duration {
	cur, rem := t, d
	for _, w := range s {
		if w[1] <= cur {
			continue
		}
		if w[0] > cur+rem || (w[0] == cur+rem && rem > 0) {
			break
		}
		if w[0] > cur {
			rem -= w[0] - cur
		}
		cur = w[1]
	}
	return cur + rem
}

// DrainOrDefault is how long a run goes on after arrivals stop: Drain, or the default a
// file that leaves it out gets (docs/design.md §6) for a Scenario built in code without it.
// The simulator, its estimate and live replay all end a run at Duration + DrainOrDefault.
func (sc *Scenario) DrainOrDefault() time.Duration {
	if sc.Drain > 0 {
		return sc.Drain
	}
	return defaultDrain
}
