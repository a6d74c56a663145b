package replay

import (
	"math"
	"time"

	"github.com/patience-dev/patience/scenario"
)

// The recovery rule of docs/design.md §6 — the one rule replay, live replay and storm all apply: after the last fault phase ends, the trailing 5 s moving
// average of goodput stays within 10% of the logical arrival rate for 30 s.
//
// "The logical arrival rate" is read as the arrivals of the same trailing 5 s window, not the
// nominal rate λ: arrivals are Poisson, and a 5 s average of λ = 37.5/s has a standard
// deviation of √(5λ)/5 = 2.7/s (7.3%), so a healthy system compared with λ leaves the ±10%
// band every few seconds and 30 s in a row almost never happen (measured: a run that clearly
// recovered at 37.5/s was judged metastable). Goodput of a healthy system follows the
// arrivals it actually got, a service time later, so comparing with the arrivals' own
// average removes that noise at every rate, while a collapsed system (goodput ≈ 0) still fails.
// The band is widened by one request per 5 s window (0.2/s on the average): a request that
// arrives just before a second boundary succeeds just after it, and at a few requests per
// second one such shift alone is more than 10% (measured: 1.5/s with no fault at all was
// judged metastable).
const (
	MovingAverage  = 5 * time.Second
	RecoveryWindow = 30 * time.Second
	Tolerance      = 0.10
)

// Recovery is the judgement of one run by the recovery rule. It is part of every
// PolicyResult (replay's recovered and recovery_ms, storm's judged, metastable, ...), so the
// simulator, the live replay and storm report the same verdict from the same rule.
type Recovery struct {
	// Judged is false when the run leaves less than RecoveryWindow of arrivals after the last
	// fault, or when goodput had come back for at least MovingAverage but fewer than
	// RecoveryWindow seconds when arrivals ended (RecoveringS says how long): neither
	// recovered nor metastable can be said, the run is too short. Also false without a fault.
	Judged bool `json:"judged"`
	// RecoveringS is the length of the good streak cut off by the end of arrivals, when that
	// was at least MovingAverage but short of RecoveryWindow (0 otherwise).
	RecoveringS float64 `json:"recovering_s,omitempty"`
	// Recovered says a RecoveryWindow of steady goodput started after the last fault.
	Recovered bool `json:"recovered"`
	// RecoveryMs runs from the end of the last fault to the start of that window; null when
	// not recovered.
	RecoveryMs *float64 `json:"recovery_ms"`
	// Metastable: every fault is over and the run ends without recovering.
	Metastable bool `json:"metastable"`
	// Backlog: judged, not recovered, but not a collapse either — over the last RecoveryWindow
	// of arrivals goodput exceeded the arrivals by more than Tolerance: late retries (long
	// backoffs, a queue's delays) were still completing when arrivals stopped.
	Backlog bool `json:"backlog,omitempty"`
}

// RecoverySeconds is RecoveryMs in seconds (nil when not recovered).
func (r Recovery) RecoverySeconds() *float64 {
	if r.RecoveryMs == nil {
		return nil
	}
	s := *r.RecoveryMs / 1000
	return &s
}

// JudgeTimeline applies the recovery rule to a run's timeline: goodput is each second's
// Succeeded, arrivals its Arrivals. faultEnd is the end of the last fault phase
// ((*scenario.Target).LastPhaseEnd; 0 without one: then the whole run is judged, and a
// steady one is recovered at once).
func JudgeTimeline(tl []Second, faultEnd, arrivalsEnd time.Duration) Recovery {
	var goodput, arrivals []float64
	for _, s := range tl {
		for len(goodput) <= s.T {
			goodput, arrivals = append(goodput, 0), append(arrivals, 0)
		}
		goodput[s.T] += float64(s.Succeeded)
		arrivals[s.T] += float64(s.Arrivals)
	}
	return Judge(goodput, arrivals, faultEnd, arrivalsEnd)
}

// Judge applies the recovery rule to per-second goodput and arrival series (goodput[t] =
// logical successes in [t, t+1), arrivals[t] = logical arrivals in it), the end of the last
// fault and the end of arrivals. Seconds at or after arrivalsEnd are not judged: goodput falls to zero there
// because nothing arrives, not because the system failed. A window may start at the second
// the fault ends (recovery_s = 0 when goodput never suffered). The moving average at second t
// is the mean of goodput over [t−4, t], fewer seconds near t = 0; it must lie within 10% of the
// mean of arrivals over the same seconds.
func Judge(goodput, arrivals []float64, faultEnd, arrivalsEnd time.Duration) Recovery {
	avg := int(MovingAverage / time.Second)
	window := int(RecoveryWindow / time.Second)
	first := int(math.Ceil(faultEnd.Seconds()))
	last := min(int(arrivalsEnd/time.Second), len(goodput), len(arrivals)) // exclusive
	if last-first < window {
		return Recovery{}
	}
	ma, rate := MovingAverages(goodput, avg), MovingAverages(arrivals, avg)
	slack := 1 / float64(avg)
	run := 0 // consecutive good seconds ending at t
	for t := first; t < last; t++ {
		if rate[t] > 0 && math.Abs(ma[t]-rate[t]) <= Tolerance*rate[t]+slack {
			run++
		} else {
			run = 0
		}
		if run == window {
			start := time.Duration(t-window+1) * time.Second
			ms := float64(start-faultEnd) / float64(time.Millisecond)
			return Recovery{Judged: true, Recovered: true, RecoveryMs: &ms}
		}
	}
	if run >= avg {
		return Recovery{RecoveringS: float64(run)}
	}
	// More goodput than arrivals over the last window is not a collapse but a backlog of late
	// retries still completing when arrivals stopped (long backoffs, queue jobs).
	from := max(first, last-window)
	good, arr := 0.0, 0.0
	for t := from; t < last; t++ {
		good, arr = good+goodput[t], arr+arrivals[t]
	}
	if arr > 0 && good > arr*(1+Tolerance) {
		return Recovery{Judged: true, Backlog: true}
	}
	return Recovery{Judged: true, Metastable: true}
}

// MovingAverages returns the trailing n-second mean of xs at every second (fewer seconds
// near the start).
func MovingAverages(xs []float64, n int) []float64 {
	out := make([]float64, len(xs))
	sum := 0.0
	for i, x := range xs {
		sum += x
		k := n
		if i >= n {
			sum -= xs[i-n]
		} else {
			k = i + 1
		}
		out[i] = sum / float64(k)
	}
	return out
}

// RecoveryOf judges a run of sc from its timeline: from the end of the target's last phase
// to the end of arrivals. The simulator, the live replay and storm all call it.
func RecoveryOf(sc *scenario.Scenario, tl []Second) Recovery {
	return JudgeTimeline(tl, sc.Target.LastPhaseEnd(), sc.Duration)
}

// Incident is one phase of the target's script in scenario time: when it starts and how long
// it lasts.
type Incident struct {
	Name  string  `json:"name"`
	AtMs  float64 `json:"at_ms"`
	ForMs float64 `json:"for_ms"`
}

// IncidentsOf lists the target's phases of scenario sc, in their order. It is
// Result.Incidents.
func IncidentsOf(sc *scenario.Scenario) []Incident {
	var out []Incident
	for _, ph := range sc.Target.Phases {
		out = append(out, Incident{Name: ph.Name, AtMs: float64(ph.At) / float64(time.Millisecond), ForMs: float64(ph.For) / float64(time.Millisecond)})
	}
	return out
}

// IncidentEndMs is when the target's last phase ends, when that is before arrivals stop (so
// recovery can be judged); nil otherwise. It is Result.IncidentEndMs.
func IncidentEndMs(sc *scenario.Scenario) *float64 {
	end := sc.Target.LastPhaseEnd()
	if end > 0 && end < sc.Duration {
		v := float64(end) / float64(time.Millisecond)
		return &v
	}
	return nil
}
