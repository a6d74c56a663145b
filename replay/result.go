package replay

import (
	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/verdict"
)

// Schema is the value of Result.Schema (docs/design.md §3).
const Schema = "patience/replay/v1"

// Modes of a Result.
const (
	ModeSimulated = "simulated"
	ModeLive      = "live"
)

// Failure reasons counted in PolicyResult.FailureReasons. Reasons after a response name the
// last outcome ("http_503", "timeout", ...); these are the ones that are not an outcome.
const (
	ReasonStuck       = "stuck"        // still in flight when the drain ended
	ReasonNoWorker    = "no_worker"    // no free client worker when the request arrived
	ReasonBreakerOpen = "breaker_open" // the circuit breaker rejected the call (no fallback)
	ReasonBulkhead    = "bulkhead"     // the bulkhead rejected the call (no fallback)
	ReasonBudget      = "budget"       // the retry budget refused the retry
	ReasonDeadline    = "deadline"     // the deadline could not hold another attempt
	ReasonTimeout     = "timeout"
	// ReasonReadTimeout is a timeout the read timeout gave: a silence (the wait for the
	// head, or a pause in the body) lasted policy.ReadTimeout. Like ReasonTimeout, the
	// server may have acted.
	ReasonReadTimeout = "read_timeout"
	ReasonConnect     = "connect_timeout"
	ReasonRefused     = "refused"
	ReasonReset       = "reset"
	// ReasonStreamCut is a stream the target closed mid-way (target.stream.drop): to the
	// policy a reset (the server acted), told apart only in the failure reason.
	ReasonStreamCut = "stream_cut"
	ReasonRejected  = "rejected" // 4xx other than 408/409/429: never retried
)

// Result is the outcome of `patience replay`: every policy of a scenario replayed on the
// same arrivals and the same target draws. The live driver (live) fills the same
// struct with Mode "live", so reports and `check` read one shape.
type Result struct {
	Schema string `json:"schema"`
	// Mode is "simulated" or "live".
	Mode     string `json:"mode"`
	Scenario string `json:"scenario"`
	// Description is the scenario's story line.
	Description string `json:"description,omitempty"`
	Seed        int64  `json:"seed"`
	// DurationMs is how long arrivals lasted (the scenario's duration).
	DurationMs float64 `json:"duration_ms"`
	// IncidentEndMs is when the target's last phase ends, when that is before arrivals stop
	// (so recovery can be judged); null otherwise.
	IncidentEndMs *float64 `json:"incident_end_ms"`
	// Incidents are the target's phases in scenario time (IncidentsOf), so charts can mark
	// and zoom onto them.
	Incidents []Incident `json:"incidents,omitempty"`
	// Interrupted is set when the run was stopped before every policy finished.
	Interrupted bool           `json:"interrupted,omitempty"`
	Policies    []PolicyResult `json:"policies"`
	// Lesson is the scenario's lesson as this run judged it (LessonOf); absent when the
	// scenario states none.
	Lesson *Lesson `json:"lesson,omitempty"`
}

// PolicyResult is what one policy did to the logical requests and to the target.
type PolicyResult struct {
	Name string `json:"name"`
	// Interrupted is set when the run was stopped (Ctrl-C) while this policy was being
	// replayed: its figures cover what ran before the stop, and its verdict is not_graded.
	Interrupted bool `json:"interrupted,omitempty"`
	// Verdict is what this policy does to the caller's service (VerdictOf): its level and
	// the clauses behind it. Storm replaces it with its own judgement of the run.
	Verdict Verdict `json:"verdict"`
	// Requests counts logical requests that arrived (including those refused for lack of a
	// worker).
	Requests  int `json:"requests"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	// Degraded counts requests answered by a fallback after a breaker or bulkhead rejection:
	// the page rendered without this data ("delivery date pending").
	Degraded int `json:"degraded"`
	// SuccessRate is Succeeded / Requests (0 when there were no requests).
	SuccessRate float64 `json:"success_rate"`
	// Attempts counts attempts that reached for the target (bottom layer; a single-row
	// conflict write counts as one more).
	Attempts int `json:"attempts"`
	// Amplification is Attempts / Requests.
	Amplification float64 `json:"amplification"`
	// AmplificationNote says, when Amplification is below ×1, where the requests that made
	// no call went ("12 turned away for want of a worker, 3 refused by the open breaker");
	// "" (omitted) otherwise.
	AmplificationNote string `json:"amplification_note,omitempty"`
	// TheoreticalAmplification is Π max_attempts over the layers; null when some layer
	// retries without limit.
	TheoreticalAmplification *float64 `json:"theoretical_amplification"`
	// Latency is what callers waited: from arrival to the end of the logical request, for
	// every request not refused at arrival for lack of a worker (successes, failures,
	// degraded and stuck alike).
	Latency Latency `json:"latency"`
	// LatencyFrom says what Latency measures when it is not the whole request: "first_event"
	// for a streaming target, where a request that succeeds is timed to its first event (the
	// caller's wait: the rest streams while it works; docs/design.md §6). "" (omitted): to
	// the end of the request.
	LatencyFrom string `json:"latency_from,omitempty"`
	// Streams counts a streaming target's attempts by how they ended and the restarts; nil
	// (omitted) for a target that does not stream.
	Streams *StreamTally `json:"streams,omitempty"`
	// FinishedMs is when the last logical request finished (stuck ones at the drain end).
	FinishedMs float64 `json:"finished_ms"`
	// Duplicates counts extra executions of non-idempotent requests sent without a key
	// (a customer charged twice counts 1).
	Duplicates int `json:"duplicates"`
	// UnknownOutcomes counts failed non-idempotent requests whose last answer left the
	// outcome unknown (timeout, reset, 5xx): the server may have acted — a charge someone must
	// now confirm by hand.
	UnknownOutcomes int `json:"unknown_outcomes"`
	// PeakInFlight is the most logical requests in flight at once.
	PeakInFlight int `json:"peak_in_flight"`
	// WorkerSaturation is the peak share of one client's workers busy at once (1.0 = some
	// client had every worker taken); 0 when workers are unbounded.
	WorkerSaturation float64 `json:"worker_saturation"`
	// SaturatedMs is how long, in total, at least one client had every worker busy: the time
	// during which that client could serve nothing else.
	SaturatedMs float64 `json:"saturated_ms"`
	// NoWorker counts calls refused because no client worker was free. Workers belong to the
	// bottom layer (the caller of the dependency): for a single-layer policy these are logical
	// requests failed at arrival; below other layers, each refused bottom call counts (the
	// layer above sees a 503 and may try again), so it can exceed Requests.
	NoWorker int `json:"no_worker"`
	// PeakTargetLoadPerS is the most attempts started at the target in one second.
	PeakTargetLoadPerS float64 `json:"peak_target_load_per_s"`
	// PeakRetryBurstPerS is the most retries (at the layer that calls the dependency) started
	// in one 100 ms window, scaled to per second: the spike a synchronised wave of retries puts
	// on the dependency, which the per-second peak averages away (Brooker, "Exponential
	// Backoff And Jitter", AWS Architecture Blog, 2015).
	PeakRetryBurstPerS float64 `json:"peak_retry_burst_per_s"`
	// Recovery is the recovery rule's judgement (recovery.go): recovered, recovery_ms from
	// the end of the incident to the start of 30 s of steady goodput, judged, metastable.
	Recovery
	// WastedWork counts attempts the target served after their caller had given up.
	WastedWork int `json:"wasted_work"`
	// MalformedRetryAfter counts Retry-After values the policy could not parse (ignored).
	MalformedRetryAfter int `json:"malformed_retry_after"`
	// FailedWhileDown counts failed logical requests that arrived while the target failed
	// every attempt (a stall, or a phase whose faults take 100%: scenario.DownAt) and that
	// did not fail for want of a worker or by hanging: no policy could answer them except
	// from a fallback, so the verdict does not count them against the policy.
	FailedWhileDown int `json:"failed_while_down"`
	// FailureReasons counts failed logical requests by why they failed.
	FailureReasons map[string]int `json:"failure_reasons"`
	// Timeline has one entry per second from t=0 to the end of the run.
	Timeline []Second `json:"timeline"`
}

// LatencyFirstEvent is LatencyFrom for a streaming target.
const LatencyFirstEvent = "first_event"

// StreamTally is what became of the streams a policy's attempts opened (docs/design.md §6).
// A stream cannot be resumed: a retry after its first event starts it again from scratch.
type StreamTally struct {
	// Completed counts streams that ran to their last event.
	Completed int `json:"completed"`
	// Cut counts streams the caller's timers ended: the read timeout (the idle timeout
	// between events and before the first) or the total.
	Cut int `json:"cut"`
	// Dropped counts streams the target closed mid-way (failure reason stream_cut).
	Dropped int `json:"dropped"`
	// Restarted counts retries of a stream that had sent at least one event.
	Restarted int `json:"restarted"`
	// EventsWasted counts the events of restarted streams: sent once, thrown away, sent again.
	EventsWasted int `json:"events_wasted"`
}

// Latency holds percentiles of logical-request latency in milliseconds.
type Latency struct {
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
}

// Second is one second of the run [T, T+1).
type Second struct {
	T int `json:"t"`
	// Arrivals counts logical requests that arrived.
	Arrivals int `json:"arrivals"`
	// Attempts counts attempts started at the target: the offered load.
	Attempts int `json:"attempts"`
	// Succeeded counts logical requests that succeeded (goodput).
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	Degraded  int `json:"degraded"`
	// InFlight is the most logical requests in flight during the second.
	InFlight int `json:"in_flight"`
	// QueueLength is the longest the target's queue was during the second.
	QueueLength int `json:"queue_length"`
	// TargetBusy is the most target workers busy at once during the second.
	TargetBusy int `json:"target_busy"`
	// BusyWorkers is the most client workers busy at once during the second, over all clients.
	BusyWorkers int `json:"busy_workers"`
}

// Derive fills the fields both engines work out the same way once the counts and the
// timeline are in: success rate, amplification, latency percentiles from h (microseconds
// per logical request), and the peak target load.
func (p *PolicyResult) Derive(h *hdrhistogram.Histogram) {
	if p.Requests > 0 {
		p.SuccessRate = float64(p.Succeeded) / float64(p.Requests)
		p.Amplification = float64(p.Attempts) / float64(p.Requests)
	}
	if h.TotalCount() > 0 {
		p.Latency = Latency{
			P50Ms: float64(h.ValueAtQuantile(50)) / 1000,
			P99Ms: float64(h.ValueAtQuantile(99)) / 1000,
			MaxMs: float64(h.Max()) / 1000,
		}
	}
	for _, s := range p.Timeline {
		p.PeakTargetLoadPerS = max(p.PeakTargetLoadPerS, float64(s.Attempts))
	}
}

// Judge applies the recovery rule and the verdict to a finished result of scenario sc; both
// engines call it last, when every other field is in.
func (p *PolicyResult) Judge(sc *scenario.Scenario) {
	p.Recovery = RecoveryOf(sc, p.Timeline)
	p.Verdict = VerdictOf(sc, *p)
	p.AmplificationNote = amplificationNote(*p)
}

// JudgedBad says the run judged this policy bad (✗): the one definition of a failed policy,
// which storm's results inherit.
func (p PolicyResult) JudgedBad() bool { return p.Verdict.Level == verdict.Bad }

// Failing names the policies the run judged bad (✗), in the run's order. It is the run's
// gate: replay exits 1 when it is not empty, unless --no-fail (every ✗ exits non-zero).
func (r *Result) Failing() []string {
	var names []string
	for _, p := range r.Policies {
		if p.JudgedBad() {
			names = append(names, p.Name)
		}
	}
	return names
}
