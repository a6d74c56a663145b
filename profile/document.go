// Package profile is the latency profile: the document `patience probe --save` writes
// (Profile, schema patience/probe/v1), its HDR histograms (one geometry, encoded and
// decoded here), loading with its limits, merging (Merge, Merger), quantiles, and the
// timeout recommendation of docs/design.md §7 over it (Recommend). A Builder fed parts by Add and
// finished by Close is how probe, merges and advise make a profile. It measures nothing and
// reaches no network: probe, advise, check and the scenarios share it.
package profile

import (
	"bytes"
	"encoding/json"
)

// Schema is the value of Profile.Schema, the machine contract of docs/design.md §3.
const Schema = "patience/probe/v1"

// Profile is everything one probe (or a merge of several) measured. Its JSON tags are the
// `patience/probe/v1` contract; every report format renders this struct. Durations are in
// milliseconds (`_ms`), rates per second (`_per_s`), ratios are plain numbers.
type Profile struct {
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
	// InterruptedInFlight counts the requests still in flight when the run was interrupted
	// (Ctrl-C) or stopped early: they were sent (Requests counts them) but the interruption,
	// not the target, ended them, so they are in neither Status nor Errors and no verdict
	// reads them as failures.
	InterruptedInFlight int64 `json:"interrupted_in_flight,omitempty"`
	// Status counts responses by status code ("200": n).
	Status map[string]int64 `json:"status"`
	// Errors counts requests without a response by class: timeout, refused, reset, dns, tls,
	// other. Every class is present, zero or not.
	Errors map[string]int64 `json:"errors"`
	// ErrorSamples holds the first message of each error class seen, with a hint when the
	// class has a usual cause (x509: --insecure; fd_limit: -c or ulimit -n).
	ErrorSamples map[string]ErrorSample `json:"errors_sample"`
	// MaxTimeoutMs is --max-timeout: a request unanswered by then counts as a timeout, a
	// latency known only to be longer (0 in profiles saved before it was recorded).
	MaxTimeoutMs float64  `json:"max_timeout_ms"`
	Phases       Phases   `json:"phases"`
	Schedule     Schedule `json:"schedule"`
	// Connections is nil for merged profiles.
	Connections *Connections `json:"connections,omitempty"`
	// Distribution is a small log-spaced histogram of total latency for the report's bars.
	Distribution   []Bucket       `json:"distribution"`
	Recommendation Recommendation `json:"recommendation"`
	// Streams summarizes the streaming responses (nil when none was seen; Phases.FirstEvent).
	Streams *Streams `json:"streams,omitempty"`
	// CutoffCurve is the share of good responses that each candidate timeout would cut off.
	CutoffCurve []Cutoff `json:"cutoff_curve"`
	// Interrupted is true when the run was stopped (Ctrl-C) before it finished.
	Interrupted bool `json:"interrupted"`
	// Unreachable is true when the run stopped early because the first requests all failed
	// to connect (refused, DNS or TLS) and none got a response.
	Unreachable bool `json:"unreachable,omitempty"`
	// Merged is the number of saved profiles combined into this result (0 for a live run).
	Merged int `json:"merged,omitempty"`
	// Source says which existing data the samples were read from (patience advise: access
	// logs, HAR, traces, metrics); nil for a live run.
	Source *Source `json:"source,omitempty"`
	// Notes are warnings about the measurement itself (rate not held, too few samples).
	Notes []string `json:"notes"`
	// Histogram is the total-latency HDR histogram (values in microseconds), encoded with
	// hdrhistogram-go's V2 compressed encoding and base64 (std): mergeable across runs.
	Histogram string `json:"histogram,omitempty"`
	// Histograms holds one such encoded histogram per recorded series (see Series).
	Histograms map[string]string `json:"histograms,omitempty"`
	// Emit is the recommendation written in each target --emit named (package emit writes
	// them); absent without --emit.
	Emit []Emission `json:"emit,omitempty"`
}

// Emission is the recommendation written for one target (`--emit TARGET`, issue 27 item 2):
// a program in a client library or a configuration file, the knobs it sets and the bounds
// the target cannot express. Package emit writes it; it is here because it is part of the
// patience/probe/v1 document.
type Emission struct {
	// Target names the target ("requests", "nginx", …); Kind is "code" or "config";
	// Language the text's language ("python", "yaml", …).
	Target   string `json:"target"`
	Kind     string `json:"kind"`
	Language string `json:"language"`
	// Text is the program or file, complete.
	Text string `json:"text"`
	// Settings lists each knob set: its name in the target's words, its value as written,
	// what it bounds.
	Settings []EmitSetting `json:"settings"`
	// Missing says, for each bound the recommendation has and the target cannot express,
	// what is missing and what the text does instead.
	Missing []string `json:"missing"`
	// Group is the advise --by group the emission is for ("" for all samples).
	Group string `json:"group,omitempty"`
	// Path is where --emit TARGET=PATH wrote Text ("" when it is only in the report).
	Path string `json:"path,omitempty"`
}

// EmitSetting is one knob an emission sets.
type EmitSetting struct {
	Knob   string `json:"knob"`
	Value  string `json:"value"`
	Bounds string `json:"bounds"`
}

// Source describes the latency data a result was read from rather than measured (docs/design.md §3:
// advise is the probe schema with `source`): the format, the files, the lines read and how
// many of them could not be parsed (counted, never fatal).
type Source struct {
	Format    string   `json:"format"`
	Files     []string `json:"files"`
	Lines     int64    `json:"lines"`
	Malformed int64    `json:"malformed"`
	// MalformedSample holds the first few malformed lines as "file:line: why".
	MalformedSample []string `json:"malformed_sample,omitempty"`
	// Unit is the unit the source writes durations in ("s", "ms", "µs", "ns").
	Unit string `json:"unit,omitempty"`
	// Group is the group these samples are (a route, host or status); "" for all of them.
	Group string `json:"group,omitempty"`
}

// Target is what was probed. Secrets in headers and query values are already redacted.
type Target struct {
	URL     string   `json:"url"`
	Method  string   `json:"method"`
	Headers []string `json:"headers,omitempty"`
	// Protocol is what the requests spoke: "h2" (HTTP/2 over TLS), "h2c" (HTTP/2 over
	// plain TCP, prior knowledge) or "http/1.1" ("" in profiles saved before it was recorded).
	Protocol string `json:"protocol,omitempty"`
	// TLS is what the first handshake agreed (nil over plain TCP).
	TLS *TLSInfo `json:"tls,omitempty"`
}

// TLSInfo is what the run's first TLS handshake agreed.
type TLSInfo struct {
	// Version is "TLS 1.3" (tls.VersionName); Cipher the suite (tls.CipherSuiteName).
	Version string `json:"version"`
	Cipher  string `json:"cipher"`
	// ALPN is the application protocol the server chose ("h2"; "" when none was offered).
	ALPN string `json:"alpn,omitempty"`
	// ServerName is the name sent in SNI and verified against the certificate.
	ServerName string `json:"server_name"`
}

// Connections describes the connections a run opened.
type Connections struct {
	// Opened counts connections dialled (HTTP/2: one carries many streams).
	Opened int64 `json:"opened"`
	// PeakStreams is the most HTTP/2 streams in flight at once on one connection (0 on
	// HTTP/1.1, which carries one request at a time).
	PeakStreams int64 `json:"peak_streams,omitempty"`
	// MaxConcurrentStreams is the server's SETTINGS_MAX_CONCURRENT_STREAMS (0: not known).
	MaxConcurrentStreams uint32 `json:"max_concurrent_streams,omitempty"`
}

// Phases holds one summary per request phase (docs/design.md §7). DNS, connect and TLS only happen on
// fresh connections; TTFB, total and sent carry the fresh/reused split.
type Phases struct {
	DNS     *Summary `json:"dns"`
	Connect *Summary `json:"connect"`
	TLS     *Summary `json:"tls"`
	// TTFB runs from the request being written to the first response byte.
	TTFB *Summary `json:"ttfb"`
	// Silence is the longest silence of each response: the longer of its wait for the
	// first byte and its longest pause between two reads of the response (docs/design.md
	// §7): what a read timeout — Python requests', OkHttp's readTimeout, nginx's
	// proxy_read_timeout — has to outlast. The wait for the first byte counts from the
	// request being written, plus the send's lateness (actual − intended): coordinated
	// omission corrected as the total is, for a request sent on time would have waited that
	// much longer; the connect and TLS set-up before the write are not a silence of the
	// response (the connect timeout bounds them, and a read timeout's clock starts at the
	// write). The pauses lie within one response and need no correction. In the closed
	// model the intended time is the actual send. A probe keeps one running maximum per
	// request (no list of reads), stamped as TTFB and the total are. From a log (patience
	// advise) it is what the source's fields bound (Source and Notes say which), and empty
	// where they bound nothing.
	Silence *Summary `json:"silence"`
	// Total runs from the intended send time to the end of the body: coordinated omission
	// corrected. In the closed model the intended time is the actual send. The end of the
	// body (and the first byte of TTFB) is when those bytes reached this host: the kernel's
	// receive timestamp on 64-bit Linux over plain HTTP, else the moment the probe read
	// them; never the later moment the probe finished its own bookkeeping (probe/client.go).
	Total *Summary `json:"total"`
	// Sent runs from the actual send to the end of the body (what closed-loop tools report).
	Sent *Summary `json:"sent"`
	// FirstEvent and Gap are the phases of streaming responses (Profile.Streams), nil when
	// no stream was seen. FirstEvent runs from the intended send to the end of the stream's
	// first complete event (an SSE event ends at its blank line, an NDJSON one at its
	// newline, a chunk of another body with --stream when it is read): coordinated omission
	// corrected and stamped as the total is. Gap has one sample per silence between two
	// consecutive events of a stream, the end of one to the end of the next: what an idle
	// timeout must outlast.
	FirstEvent *Summary `json:"first_event,omitempty"`
	Gap        *Summary `json:"gap,omitempty"`
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
	// RateHeld is false when the generator fell behind its schedule by the rate rule (RateKept).
	RateHeld bool `json:"rate_held"`
}

// Bucket is one bar of the latency distribution: responses with total latency in
// (FromMs, ToMs].
type Bucket struct {
	FromMs float64 `json:"from_ms"`
	ToMs   float64 `json:"to_ms"`
	Count  int64   `json:"count"`
}

// Cutoff is one point of the cut-off curve: a candidate timeout and the share of requests
// it would cut off (they would have failed and, likely, been retried). The requests are the
// good responses and those with no answer within --max-timeout, which any timeout up to
// --max-timeout cuts off.
type Cutoff struct {
	// Label is "p90", "p99", "p99.9", "p99.99", "max-timeout" or "recommended".
	Label     string   `json:"label"`
	TimeoutMs *float64 `json:"timeout_ms"`
	// Beyond is true when the quantile lies among the unanswered requests: it is longer than
	// --max-timeout, by how much nobody knows (TimeoutMs and CutRate are null).
	Beyond bool `json:"beyond_max_timeout,omitempty"`
	// CutRate is the share of requests slower than TimeoutMs (nil when TimeoutMs is).
	CutRate *float64 `json:"cut_rate"`
	// Samples is the number of requests behind the figure: good responses plus unanswered.
	Samples int64 `json:"samples"`
}

// Recommendation is the policy advice of docs/design.md §7 for one caller (Recommend), each number with
// its derivation line.
type Recommendation struct {
	// ConnectTimeoutMs is the connect timeout; 0 means none is recommended: the connect
	// timeout that survives a lost SYN is not below the total timeout, so the total timeout
	// bounds the connect and a separate one buys nothing (check's PT002 warns about a
	// connect timeout at or above the total). Also 0 when no timeout was derived.
	ConnectTimeoutMs float64 `json:"connect_timeout_ms"`
	// TimeoutMs is the per-attempt total timeout; 0 when none could be derived (no good
	// response, or the cut-off quantile lies beyond --max-timeout).
	TimeoutMs float64 `json:"timeout_ms"`
	// ReadTimeoutMs is the read timeout: the bound on each silence of a response (the wait
	// for the first byte, each pause between two reads), derived from the silence phase as
	// TimeoutMs is from the total, and never above TimeoutMs. Null when none was derived: no
	// total timeout, or an input whose fields bound no silence (many logs), or a cut-off
	// quantile among the unanswered requests. It bounds no response as a whole: a client
	// with only a read timeout still needs a total (check's PT001).
	ReadTimeoutMs *float64 `json:"read_timeout_ms"`
	// StreamAdvice is the advice for a streaming response (issue 29 item 2): its fields —
	// first_event_timeout_ms, idle_timeout_ms, idle_gap_quantile, stream_timeout_ms,
	// stream_unbounded — sit beside read_timeout_ms, absent when no stream was seen (nil).
	// For a stream, TimeoutMs keeps its meaning: the per-attempt total fitted to the whole
	// responses seen, what check's rules compare as the total.
	*StreamAdvice
	// BudgetReads says which phase the caller's budget holds per attempt (BudgetPhase,
	// docs/design.md §7 "Streams"): "first_event" for a stream an interactive caller waits
	// on — MaxAttempts, AttemptsFit and FitsBudget then count first-event timeouts, not
	// TimeoutMs — "total" for a stream a job consumes; absent for a response that does not
	// stream (the total). CallerWaitMs is the figure it names.
	BudgetReads BudgetPhase `json:"budget_reads,omitempty"`
	// MaxAttempts counts the first try; 0 means the budget cannot hold one normal call.
	// Interactive callers get at most 2 (one retry), a non-idempotent call without an
	// Idempotency-Key 1, a job 1 per run (the queue retries: Job).
	MaxAttempts int `json:"max_attempts"`
	// AttemptsFit is how many attempts the budget would hold (at most MaxAttemptsCap) with
	// the assumed backoff: what MaxAttempts was before the caller's rules applied.
	AttemptsFit int     `json:"attempts_fit"`
	BudgetMs    float64 `json:"budget_ms"`
	FitsBudget  bool    `json:"fits_budget"`
	// Caller is who the advice is for.
	Caller CallerInfo `json:"caller"`
	// Job is the queue design for a job caller (nil for an interactive one).
	Job *JobDesign `json:"job,omitempty"`
	// RetryBudget sizes the retry budgets of proxies, meshes and gRPC from the measured
	// load (nil when the load is unknown: no rate or latency measured).
	RetryBudget *RetryBudget `json:"retry_budget,omitempty"`
	// BasisMs is the measured latency the timeout was derived from: the quantile
	// 1 − cutoff_rate of good responses and unanswered requests together, or the slowest
	// good response when too few back that quantile.
	// BasisCILowMs and BasisCIHighMs are the 95% confidence interval of that quantile from
	// the order statistics (no assumption on the distribution); high is null when too few
	// responses lie above the quantile to bound it, both are null without a quantile.
	// BasisMs is 0 in Go and null in JSON (MarshalJSON) when no timeout could be derived
	// (docs/design.md §3: a figure that could not be derived is null, never 0); a measured basis is never 0 (the
	// histograms start at 1 µs), and a null reads back as 0.
	BasisMs       float64  `json:"basis_ms"`
	BasisCILowMs  *float64 `json:"basis_ci_low_ms"`
	BasisCIHighMs *float64 `json:"basis_ci_high_ms"`
	// BasisBeyond: the quantile lies beyond --max-timeout (requests with no answer); no
	// timeout is derived from it.
	BasisBeyond bool `json:"basis_beyond_max_timeout,omitempty"`
	// Samples counts the requests behind the basis (good responses and unanswered ones);
	// SamplesNeeded is what the cut-off quantile needs (1,000 for p99.9).
	Samples       int64 `json:"samples"`
	SamplesNeeded int64 `json:"samples_needed"`
	// ErrorRate is the share of finished requests that were not good responses (errors,
	// 4xx, 5xx); NoAnswerRate the share with no answer within --max-timeout.
	ErrorRate    float64 `json:"error_rate"`
	NoAnswerRate float64 `json:"no_answer_rate"`
	MaxErrorRate float64 `json:"max_error_rate"`
	// CutoffRate is the accepted share of requests cut off by the timeout.
	CutoffRate     float64 `json:"cutoff_rate"`
	Headroom       float64 `json:"headroom"`
	ConnectFloorMs float64 `json:"connect_floor_ms"`
	// Backoff names the backoff assumed between attempts.
	Backoff    string   `json:"backoff"`
	Verdict    Verdict  `json:"verdict"`
	Derivation []string `json:"derivation"`
}

// MarshalJSON writes the recommendation with its JSON tags, basis_ms null when no basis was
// derived (BasisMs 0), in the same place among the fields.
func (r Recommendation) MarshalJSON() ([]byte, error) {
	type plain Recommendation
	// Unescaped: the caller's encoder escapes HTML in what this returns, or not, as it
	// was told (report's JSON does not).
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(plain(r)); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
	if r.BasisMs != 0 {
		return b, nil
	}
	// The one "basis_ms" key: within a string its quotes would be escaped.
	return bytes.Replace(b, []byte(`"basis_ms":0,`), []byte(`"basis_ms":null,`), 1), nil
}

// CallerInfo is the caller a recommendation was made for, as JSON.
type CallerInfo struct {
	Kind           CallerKind `json:"kind"`
	Method         string     `json:"method"`
	IdempotencyKey bool       `json:"idempotency_key"`
	// BudgetMs: an interactive caller's whole wait; a job's retry window (0 = none given).
	BudgetMs float64 `json:"budget_ms"`
}

// JobDesign is the queue design for a job caller (the seeds' Laravel job: $tries, $timeout,
// backoff(), the queue's retry_after): the call runs once per try, and the queue retries it.
type JobDesign struct {
	// Tries counts every run of the job, the first included ($tries).
	Tries int `json:"tries"`
	// BackoffMs lists the delay before each re-run, before jitter (backoff()).
	BackoffMs []float64 `json:"backoff_ms"`
	// Jitter is "proportional": each delay d becomes d + U[0, JitterFactor·d].
	Jitter       string  `json:"jitter"`
	JitterFactor float64 `json:"jitter_factor"`
	// TimeoutMs is the job's own timeout for one run ($timeout).
	TimeoutMs float64 `json:"timeout_ms"`
	// RetryAfterMs is the queue's retry_after: longer than the job timeout, or a job still
	// running is delivered a second time.
	RetryAfterMs float64 `json:"retry_after_ms"`
	// GiveUpAfterMs is the longest a job that fails every try keeps retrying: Tries runs of
	// TimeoutMs plus every delay at its jitter bound (a retryUntil() at least this long).
	GiveUpAfterMs float64 `json:"give_up_after_ms"`
}

// RetryBudget is the retry budget sized from the measured load (issue 27 item 3): it admits
// the retries the measured transient failures need at normal load and caps amplification
// in a full outage. One sizing, written in each target's knobs by package emit: Envoy and
// Istio `retry_budget` (budget_percent, min_retry_concurrency), Linkerd
// (retryRatio = Percent/100, minRetriesPerSecond), gRPC `retryThrottling` (maxTokens,
// tokenRatio).
type RetryBudget struct {
	// RatePerS is the measured request rate; Concurrency the mean requests in flight at that
	// rate (Little's law: rate × mean latency).
	RatePerS    float64 `json:"rate_per_s"`
	Concurrency float64 `json:"concurrency"`
	// Percent is the retries allowed, as a percentage of active requests (Envoy and Istio
	// budget_percent; Linkerd's retryRatio is Percent/100).
	Percent float64 `json:"percent"`
	// MinRetryConcurrency is Envoy and Istio's min_retry_concurrency: the retries always
	// allowed in flight, whatever the percentage.
	MinRetryConcurrency int `json:"min_retry_concurrency"`
	// MinRetriesPerSecond is Linkerd's minRetriesPerSecond.
	MinRetriesPerSecond int `json:"min_retries_per_second"`
	// MaxTokens and TokenRatio are gRPC's retryThrottling (both 0 when the caller makes one
	// attempt: no retryPolicy, so nothing to throttle).
	MaxTokens  int     `json:"max_tokens"`
	TokenRatio float64 `json:"token_ratio"`
	// WindowS is the window, in seconds, the rate-based floors are counted over: Linkerd's
	// ttl (added for the Linkerd target, whose retryBudget needs it beside the ratio).
	WindowS float64 `json:"window_s"`
	// TransientShare is the measured share of requests that failed with a class a retry
	// repeats, TransientUpper its one-sided 95% upper bound, the share the budget is sized
	// for (added so a reader sees what the percentage admits; 0 when k ≤ 1).
	TransientShare float64 `json:"transient_share"`
	TransientUpper float64 `json:"transient_upper"`
	// OutageAmplification is the most attempts per request the budget allows when every
	// attempt fails, once the floor is spent: 1/(1 − Percent/100) under Envoy, which counts
	// retries in flight among the active requests (Linkerd's 1 + Percent/100 is below it),
	// never above the recommended attempts.
	OutageAmplification float64 `json:"outage_amplification"`
	// FloorAmplification is the same at the measured rate and concurrency, where the floors
	// (min_retry_concurrency, minRetriesPerSecond) may allow more than the percentage —
	// a quiet service's floors dominate (added: without it a reader would take
	// OutageAmplification for the bound at any load).
	FloorAmplification float64  `json:"floor_amplification"`
	Derivation         []string `json:"derivation"`
}
