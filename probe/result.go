// Package probe measures a live HTTP target: an open-model (or closed-model) scheduler,
// per-phase latency from net/http/httptrace recorded into HDR histograms, profile I/O and
// merging, and the timeout recommendation of DESIGN §7 (advise.go). It never imports cobra,
// lipgloss or mpb; cmd wires it and report renders its Result.
package probe

// Schema is the value of Result.Schema, the machine contract of DESIGN §3.
const Schema = "patience/probe/v1"

// Result is everything one probe (or a merge of several) measured. Its JSON tags are the
// `patience/probe/v1` contract; every report format renders this struct. Durations are in
// milliseconds (`_ms`), rates per second (`_per_s`), ratios are plain numbers.
type Result struct {
	Schema string `json:"schema"`
	Target Target `json:"target"`
	// Model is "open" (fixed send schedule) or "closed" (Concurrency workers back to back).
	Model string `json:"model"`
	// Conn is the connection mode asked for: fresh, reuse or both.
	Conn        string `json:"conn"`
	Concurrency int    `json:"concurrency,omitempty"`
	// DurationMs is the wall time from the first intended send to the last completion.
	DurationMs float64 `json:"duration_ms"`
	// Requests counts requests sent; Responses those that got an HTTP response (any status).
	Requests  int64 `json:"requests"`
	Responses int64 `json:"responses"`
	// Status counts responses by status code ("200": n).
	Status map[string]int64 `json:"status"`
	// Errors counts requests without a response by class: timeout, refused, reset, dns, tls,
	// other. Every class is present, zero or not.
	Errors   map[string]int64 `json:"errors"`
	Phases   Phases           `json:"phases"`
	Schedule Schedule         `json:"schedule"`
	// Distribution is a small log-spaced histogram of total latency for the report's bars.
	Distribution   []Bucket       `json:"distribution"`
	Recommendation Recommendation `json:"recommendation"`
	// CutoffCurve is the share of good responses that each candidate timeout would cut off.
	CutoffCurve []Cutoff `json:"cutoff_curve"`
	// Interrupted is true when the run was stopped (Ctrl-C) before it finished.
	Interrupted bool `json:"interrupted"`
	// Unreachable is true when the run stopped early because the first requests all failed
	// to connect (refused, DNS or TLS) and none got a response.
	Unreachable bool `json:"unreachable,omitempty"`
	// Merged is the number of saved profiles combined into this result (0 for a live run).
	Merged int `json:"merged,omitempty"`
	// Notes are warnings about the measurement itself (rate not held, too few samples).
	Notes []string `json:"notes"`
	// Histogram is the total-latency HDR histogram (values in microseconds), encoded with
	// hdrhistogram-go's V2 compressed encoding and base64 (std): mergeable across runs.
	Histogram string `json:"histogram,omitempty"`
	// Histograms holds one such encoded histogram per recorded series (see Series).
	Histograms map[string]string `json:"histograms,omitempty"`
}

// Target is what was probed. Secrets in headers and query values are already redacted.
type Target struct {
	URL     string   `json:"url"`
	Method  string   `json:"method"`
	Headers []string `json:"headers,omitempty"`
}

// Phases holds one summary per request phase (DESIGN §7). DNS, connect and TLS only happen on
// fresh connections; TTFB, total and sent carry the fresh/reused split.
type Phases struct {
	DNS     *Summary `json:"dns"`
	Connect *Summary `json:"connect"`
	TLS     *Summary `json:"tls"`
	// TTFB runs from the request being written to the first response byte.
	TTFB *Summary `json:"ttfb"`
	// Total runs from the intended send time to the end of the body: coordinated omission
	// corrected. In the closed model the intended time is the actual send. The end of the
	// body (and the first byte of TTFB) is when those bytes reached this host: the kernel's
	// receive timestamp on 64-bit Linux over plain HTTP, else the moment the probe read
	// them; never the later moment the probe finished its own bookkeeping (client.go).
	Total *Summary `json:"total"`
	// Sent runs from the actual send to the end of the body (what closed-loop tools report).
	Sent *Summary `json:"sent"`
}

// Summary is the distribution of one phase. A percentile without at least 1/(1-q) samples
// behind it is nil (null in JSON): p99 needs 100 samples, p99.9 needs 1000.
type Summary struct {
	Count  int64    `json:"count"`
	MinMs  *float64 `json:"min_ms"`
	P50Ms  *float64 `json:"p50_ms"`
	P90Ms  *float64 `json:"p90_ms"`
	P95Ms  *float64 `json:"p95_ms"`
	P99Ms  *float64 `json:"p99_ms"`
	P999Ms *float64 `json:"p999_ms"`
	MaxMs  *float64 `json:"max_ms"`
	// Fresh and Reused split the phase by whether the request opened a new connection.
	Fresh  *Summary `json:"fresh,omitempty"`
	Reused *Summary `json:"reused,omitempty"`
}

// Schedule says whether the generator kept its schedule.
type Schedule struct {
	// RequestedPerS is the asked-for rate (nil in the closed model, which has no schedule).
	RequestedPerS *float64 `json:"requested_per_s"`
	AchievedPerS  float64  `json:"achieved_per_s"`
	// Late counts sends dispatched more than LateAfterMs after their intended time.
	Late        int64   `json:"late"`
	LateAfterMs float64 `json:"late_after_ms"`
	// LateP99Ms is the 99th percentile of send lateness (actual − intended) over all sends.
	LateP99Ms *float64 `json:"late_p99_ms"`
	// WaitedForSlot counts sends that found --max-in-flight requests outstanding and waited.
	WaitedForSlot int64 `json:"waited_for_slot"`
	// Dropped counts sends skipped because by the time a slot was free they were more than
	// --max-timeout past their intended time (they would have been timeouts anyway).
	Dropped int64 `json:"dropped"`
	// Resent counts idempotent requests sent a second time, on a new connection, because
	// the kept-alive one they first went out on had been closed by the server before any
	// response; their latency includes the failed first try.
	Resent       int64 `json:"resent"`
	MaxInFlight  int   `json:"max_in_flight"`
	PeakInFlight int64 `json:"peak_in_flight"`
	// RateHeld is false when the achieved rate is more than 1% below the requested one.
	RateHeld bool `json:"rate_held"`
}

// Bucket is one bar of the latency distribution: responses with total latency in
// (FromMs, ToMs].
type Bucket struct {
	FromMs float64 `json:"from_ms"`
	ToMs   float64 `json:"to_ms"`
	Count  int64   `json:"count"`
}

// Cutoff is one point of the cut-off curve: a candidate timeout and the share of good
// responses that took longer (they would have been cut off and, likely, retried).
type Cutoff struct {
	// Label is "p90", "p99", "p99.9", "p99.99" or "recommended".
	Label     string   `json:"label"`
	TimeoutMs *float64 `json:"timeout_ms"`
	// CutRate is the share of good responses slower than TimeoutMs (nil when TimeoutMs is).
	CutRate *float64 `json:"cut_rate"`
	// Samples is the number of good responses behind the figure.
	Samples int64 `json:"samples"`
}

// Recommendation is the policy advice of DESIGN §7, each number with its derivation line.
type Recommendation struct {
	ConnectTimeoutMs float64 `json:"connect_timeout_ms"`
	TimeoutMs        float64 `json:"timeout_ms"`
	// MaxAttempts counts the first try; 0 means the budget cannot hold one normal call.
	MaxAttempts int     `json:"max_attempts"`
	BudgetMs    float64 `json:"budget_ms"`
	FitsBudget  bool    `json:"fits_budget"`
	// BasisMs is the measured latency the timeout was derived from: the good responses'
	// quantile 1 − cutoff_rate, or the slowest one when too few back that quantile.
	// BasisCILowMs and BasisCIHighMs are the 95% confidence interval of that quantile from
	// the order statistics (no assumption on the distribution); high is null when too few
	// responses lie above the quantile to bound it, both are null without a quantile.
	BasisMs       float64  `json:"basis_ms"`
	BasisCILowMs  *float64 `json:"basis_ci_low_ms"`
	BasisCIHighMs *float64 `json:"basis_ci_high_ms"`
	// CutoffRate is the accepted share of good responses cut off by the timeout.
	CutoffRate     float64 `json:"cutoff_rate"`
	Headroom       float64 `json:"headroom"`
	ConnectFloorMs float64 `json:"connect_floor_ms"`
	// Backoff names the backoff assumed between attempts.
	Backoff    string   `json:"backoff"`
	Verdict    string   `json:"verdict"`
	Derivation []string `json:"derivation"`
}

// ErrorClasses lists the error classes in report order.
var ErrorClasses = []string{"timeout", "refused", "reset", "dns", "tls", "other"}
