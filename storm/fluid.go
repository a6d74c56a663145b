package storm

import (
	"time"

	"github.com/patience-dev/patience/replay"
)

// The fluid approximation of a retry storm, the closed forms `stable_below_per_s` is checked
// against. Notation: C capacity (requests/s served), λ logical arrival rate, T the client's
// per-attempt timeout, N = Π N_k the attempts per logical request over all layers (first
// tries included), D the stall length, H the time from the end of the stall to the end of
// arrivals. Requests are a fluid; the FIFO queue Q is unbounded; the queueing delay is Q / C.
//
//  1. Two regimes. While Q / C < T an attempt is answered before its caller gives up: each
//     logical request costs one attempt and the offered load is λ. Once Q / C > T every
//     attempt times out — the server still serves it later, for nobody (wasted work) — and
//     is retried until the attempts run out: the offered load is λ·N (in steady state,
//     whatever the backoff: backoff delays attempts, it does not remove them).
//  2. The stall. While the server is stopped nothing leaves the queue; after the first
//     timeouts every arrival feeds it N attempts, so when the stall ends Q ≈ λ·N·D. It has
//     tipped the system into the second regime iff λ·N·D > C·T.
//  3. After the stall, dQ/dt = λ·N − C while Q / C > T. If λ·N > C the backlog grows for ever:
//     goodput stays near zero although λ < C would be served easily — metastable. If
//     λ·N < C it drains to C·T after (λ·N·D − C·T) / (C − λ·N) seconds and the system
//     returns to the first regime: it recovers.
//
// Hence the bound: a retry-on-timeout policy with an unbounded queue recovers from a
// sufficient trigger iff λ < C / N = capacity / (retries + 1) per layer product.
//
// Finite runs see less: recovery must also fit in the run. The judge needs the drain, about
// replay.MovingAverage for the average to settle, and replay.RecoveryWindow of steady goodput, all inside H:
// (λND − CT)/(C − λN) + 5 + 30 ≤ H, i.e. λ ≤ C·(H' + T) / (N·(D + H')) with H' = H − 35 s.
// This is FluidHorizonBound; as H grows it tends to C / N.
//
// Layers and short triggers. The bound assumes the collapsed regime has reached its steady
// state, where every logical request in flight contributes its N attempts. A request takes
// N·T plus its backoffs to make them: 4 × 1 s + 0.7 s for one layer of 4, but ≈ 64 × 1.1 s =
// 75 s for 4,4,4 when each upper layer waits for the layer below to give up (the quick
// model's layers). Until then the collapsed load is below λ·ΠN and ramps up; the backlog a
// short trigger leaves can drain before the ramp reaches C. The trigger must also tip the
// system at all: λ·N_b·D > C·T with N_b the bottom layer's attempts (the upper layers have not
// retried yet during a 10 s stall). So for deep chains and short stalls the measured
// stable_below_per_s lies above C/ΠN and approaches it as the stall grows. Measured with the
// default model (C = 300/s, T = 1 s, 3 min of arrivals) and 4,4,4: a 10 s stall recovers up to
// 18/s (C/ΠN = 4.7/s; tipping needs λ > 300/(4·10) = 7.5/s); a 60 s stall only up to 1.5–3/s,
// matching its horizon bound of 2.3/s.
//
// Mitigations change N in the second regime: no retries (N = 1) gives C. A token bucket
// (AWS standard: 500 tokens, 10 per retry after a timeout, +1 per first-try success) allows
// each client 50 retries and then none until first tries succeed again: a finite burst, so the
// asymptotic bound is C again. A ratio budget of p allows λ·(1+p): C / (1+p). A breaker sheds
// load while open; its bound depends on open_for and the drain, and has no simple closed form.

// FluidBound is C / Π attempts: the largest arrival rate at which a backlog that has pushed
// the queueing delay past the client timeout still drains (derivation above).
func FluidBound(capacity float64, attempts []int) float64 {
	n := 1
	for _, a := range attempts {
		n *= a
	}
	return capacity / float64(n)
}

// FluidHorizonBound is the largest arrival rate whose drain after a stall of length stall,
// plus the time the recovery judge needs, fits in horizon (the time from the end of the stall
// to the end of arrivals), for n attempts per logical request and timeout. It is never above
// FluidBound and tends to it as the horizon grows. It returns 0 when the horizon cannot hold
// the judge at all.
func FluidHorizonBound(capacity float64, n int, timeout, stall, horizon time.Duration) float64 {
	h := (horizon - replay.MovingAverage - replay.RecoveryWindow).Seconds()
	if h <= 0 {
		return 0
	}
	return capacity * (h + timeout.Seconds()) / (float64(n) * (stall.Seconds() + h))
}

// FluidDrain is the fluid model's time from the end of a stall until the queueing delay is
// back under the timeout, for arrival rate λ and n attempts: (λ·n·D − C·T) / (C − λ·n), 0 when
// the stall never pushed the delay past T, and -1 (never) when λ·n ≥ C.
func FluidDrain(capacity, rate float64, n int, timeout, stall time.Duration) time.Duration {
	load := rate * float64(n)
	backlog := load*stall.Seconds() - capacity*timeout.Seconds()
	if backlog <= 0 {
		return 0
	}
	if load >= capacity {
		return -1
	}
	return time.Duration(backlog / (capacity - load) * float64(time.Second))
}
