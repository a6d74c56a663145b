package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// Defaults of the scenario fields a file leaves out (the tables below print them).
const (
	defaultSeed  = 1
	defaultDrain = 10 * time.Minute // docs/design.md §6
	// phaseNameFormat and layerNameFormat name a phase or a layer without name: by its place
	// in the list, from 1.
	phaseNameFormat = "phase-%d"
	layerNameFormat = "layer-%d"
	// defaultStatusPercent is the share of attempts a status fault without percent: takes.
	defaultStatusPercent = 1.0
	// singlePolicyName names the policy of `policy:` when it has no name:.
	singlePolicyName = "policy"
)

// Target.Conflicts values.
const (
	ConflictsNone      = "none"
	ConflictsSingleRow = "single-row"
)

// conflictModes are the accepted values of target.conflicts, the default first.
var conflictModes = []string{ConflictsNone, ConflictsSingleRow}

// defaultLoad is the load of a `load:` mapping before its fields are read.
func defaultLoad() Load {
	return Load{Clients: 1, Request: Request{Method: "GET", Path: "/"}}
}

// defaultTarget is the target of a `target:` mapping before its fields are read.
func defaultTarget() Target {
	return Target{Connect: Distribution{Kind: DistFixed, Fixed: time.Millisecond}, Conflicts: conflictModes[0]}
}

// forReplay says that a field is required for replay but not for serve (Purpose).
const forReplay = " for replay, storm and check (serve needs only target)"

var scenarioTable = newTable("scenario", "Top level", "the top of the file",
	"A scenario is one YAML mapping: who calls (load), how the dependency behaves (target) and the "+
		"caller's policies, replayed side by side on the same arrivals.",
	field{Name: "name", decode: (*scenarioReader).name, Type: "string", Default: "the file's name without .yaml",
		Doc: "Labels the scenario in reports.", Example: "name: checkout-hang"},
	field{Name: "description", decode: (*scenarioReader).description, Type: "string", Default: "none",
		Doc:     "One line shown by `patience scenarios` and at the top of a replay.",
		Example: "description: A checkout page waits on a hung delivery-date API."},
	field{Name: "lesson", decode: (*scenarioReader).lesson, Type: "mapping", Default: "none", Table: "lesson", Shape: shapeMapping,
		Doc:     "The policy the scenario recommends and why: replay prints it under the verdicts and says when that policy is not the best judged.",
		Example: "lesson: {recommends: ours, why: a timeout bounds how long a worker is lent to the outage}"},
	field{Name: "seed", decode: (*scenarioReader).seed, Type: "integer", Default: strconv.Itoa(defaultSeed),
		Doc:     "Seeds every random stream (arrivals, target draws, jitter): the same file and seed give the same result, byte for byte.",
		Example: "seed: 7"},
	field{Name: "duration", Type: "duration ≤ " + FormatDuration(maxDuration),
		Default: "required" + forReplay + " unless the load is a burst alone",
		Doc:     "How long arrivals continue.", Example: "duration: 5m"},
	field{Name: "drain", decode: (*scenarioReader).drain, Type: "duration ≤ " + FormatDuration(maxDuration), Default: FormatDuration(defaultDrain),
		Doc:     "How long the run goes on after duration; what is still in flight then counts as failed, reason stuck.",
		Example: "drain: 2m"},
	field{Name: "load", Type: "mapping", Default: "required" + forReplay, Table: "load", Shape: shapeMapping,
		Doc: "Who calls the target, and how often.", Example: "load: {clients: 4, rate: 20/s}"},
	field{Name: "target", Type: "mapping", Default: "required", Table: "target", Shape: shapeMapping,
		Doc:     "How the dependency behaves: its latency and the phases that change it.",
		Example: "target: {latency: {p50: 80ms, p99: 400ms}}"},
	field{Name: "policy", Type: "policy mapping or preset:NAME", Default: "required" + forReplay + ": policy or policies",
		Table: "policy", Shape: shapeMapping,
		Doc:     "The caller's policy. Named `policy` unless it has a name:.",
		Example: "policy: {name: ours, timeout: 2s, retry: {max_attempts: 3}}"},
	field{Name: "policies", Type: "list of policy mappings or preset:NAME", Default: "none",
		Table: "policy", Shape: shapeList,
		Doc:     "More policies, replayed on the same arrivals and shown beside `policy`. Each needs a name: unless it is a preset; {base: NAME, ...} varies another.",
		Example: "policies:\n  - preset:none\n  - {base: ours, name: no-jitter, retry: {jitter: none}}"},
	field{Name: "layers", Type: "list of layer mappings", Default: "none (one layer)", Table: "layer", Shape: shapeList,
		Doc:     "The callers above every compared policy, caller first, each retrying on its own: attempts multiply across layers. A policy with a layers: of its own keeps that.",
		Example: "layers: [{name: gateway, policy: {timeout: 10s, retry: {max_attempts: 3}}}]"},
	field{Name: "expect", Type: "mapping of policy name (or *) to expectations", Default: "none",
		Table: "expect", Shape: shapeNamed,
		Doc:     "What `patience check` requires of each policy's replay (rule PT100); * applies to every policy.",
		Example: "expect: {\"*\": {success_rate: \">= 99%\"}}"},
)

var lessonTable = newTable("lesson", "lesson", "lesson",
	"What a scenario teaches.",
	field{Name: "recommends", Type: "policy name", Default: "required",
		Doc: "The name of a policy of this file.", Example: "recommends: ours"},
	field{Name: "why", Type: "string", Default: "none",
		Doc: "One or two sentences, printed under the verdicts.", Example: "recommends: ours\nwhy: a timeout bounds how long a worker is lent to the outage"},
)

var loadTable = newTable("load", "load", "load",
	"The callers. One of rate (open model), concurrency (closed model) or burst is required; "+
		"a burst may come on top of either.",
	field{Name: "clients", decode: (*loadReader).clients, Type: intType(1, maxCount), Default: strconv.Itoa(defaultLoad().Clients),
		Doc:     "Caller instances (servers, processes); each has its own workers, breaker, bulkhead and budget.",
		Example: "clients: 10"},
	field{Name: "workers", decode: (*loadReader).workers, Type: intType(0, maxCount), Default: strconv.Itoa(defaultLoad().Workers) + " (unbounded)",
		Doc:     "Logical requests one client can hold at once (its worker pool); an arrival that finds every worker busy fails at once (reason no_worker).",
		Example: "workers: 8"},
	field{Name: "rate", decode: (*loadReader).rate, Type: "rate above 0, at most " + numText(maxRate) + "/s, at least one request in duration (rate × duration ≥ 1)", Default: "none",
		Doc:     "Open model: logical requests per second across all clients, Poisson arrivals.",
		Example: "rate: 40/s"},
	field{Name: "concurrency", decode: (*loadReader).concurrency, Type: intType(1, maxCount), Default: "none",
		Doc:     "Closed model instead of rate: this many workers across all clients, each looping request → think → request.",
		Example: "concurrency: 50"},
	field{Name: "think", decode: (*loadReader).think, Type: "duration", Default: FormatDuration(defaultLoad().Think),
		Doc:     "A closed-model worker's pause between requests; needs concurrency.",
		Example: "concurrency: 50\nthink: 100ms"},
	field{Name: "burst", decode: (*loadReader).burst, Type: intType(1, maxQueue), Default: "none",
		Doc:     "Logical requests released together at t=0 (a thundering herd).",
		Example: "burst: 100"},
	field{Name: "budget", decode: (*loadReader).budget, Type: "duration above 0", Default: "not stated",
		Doc:     "How long a caller can wait for one logical request before the answer is useless (the page's or the job's budget): a policy whose p99 exceeds it parks callers beyond their budget, which makes its verdict bad.",
		Example: "budget: 10s"},
	field{Name: "request", Type: "mapping", Default: requestText(defaultLoad().Request), Table: "request", Shape: shapeMapping,
		Doc:     "What each logical request sends.",
		Example: "request: {method: POST, path: /v1/charges}"},
)

var requestTable = newTable("request", "load.request", "load.request",
	"What each logical request sends.",
	field{Name: "method", decode: (*requestReader).method, Type: "HTTP method, in capitals", Default: defaultLoad().Request.Method,
		Doc:     "Decides whether the request is idempotent (RFC 9110 §9.2.2: GET, HEAD, OPTIONS, PUT, DELETE): outcome-unknown failures of any other method are retried only as the policy's retry.non_idempotent allows.",
		Example: "method: POST"},
	field{Name: "path", decode: (*requestReader).path, Type: "string starting with /", Default: defaultLoad().Request.Path,
		Doc: "The path `replay --live` requests (and the URL demo shows); the simulator does not look at it.", Example: "path: /v1/charges"},
	field{Name: "idempotency_key", decode: (*requestReader).idempotencyKey, Type: "boolean", Default: strconv.FormatBool(defaultLoad().Request.IdempotencyKey),
		Doc:     "Send an Idempotency-Key with every logical request, the same key on its retries; a policy's own idempotency_key overrides it.",
		Example: "idempotency_key: true"},
)

var targetTable = newTable("target", "target", "target",
	"The dependency's behaviour. Outside its phases the base latency applies and no fault is injected.",
	field{Name: "latency", decode: (*targetReader).latency, Type: "distribution", Default: "required, unless stream", Table: "distribution", Shape: shapeMapping,
		Doc: "How long the dependency takes to serve one attempt.", Example: "latency: {p50: 80ms, p99: 400ms}"},
	field{Name: "connect", decode: (*targetReader).connect, Type: "distribution", Default: distText(defaultTarget().Connect), Table: "distribution", Shape: shapeMapping,
		Doc: "How long a connection takes to set up, before the request is sent.", Example: "connect: {uniform: [1ms, 5ms]}"},
	field{Name: "capacity", decode: (*targetReader).capacity, Type: "mapping", Default: "unbounded", Table: "capacity", Shape: shapeMapping,
		Doc:     "A FIFO server: requests beyond its workers wait in the queue, overflow is answered 503 at once, and work goes on after the caller gave up (wasted work).",
		Example: "capacity: {workers: 64, queue: 1000}"},
	field{Name: "conflicts", decode: (*targetReader).conflicts, Type: choiceType(conflictModes), Default: defaultTarget().Conflicts,
		Doc:     "single-row: optimistic concurrency on one row — a write fails with 409 when another client wrote since this one read.",
		Example: "conflicts: single-row"},
	field{Name: "stream", decode: (*targetReader).stream, Type: "mapping", Default: "none", Table: "stream", Shape: shapeMapping,
		Doc:     "Every answered request is a stream of events (SSE or NDJSON) instead of one response after latency, which a stream target does not have.",
		Example: "stream: {first_event: {p50: 400ms, p99: 3s}, gap: {p50: 20ms, p99: 150ms}, events: 200}"},
	field{Name: "phases", decode: (*targetReader).phases, Type: "list of phase mappings", Default: "none", Table: "phase", Shape: shapeList,
		Doc:     "Time windows that change the target, in any order; they must not overlap.",
		Example: "phases:\n  - {name: outage, at: 2m, for: 30s, faults: [{hang: 100%}]}"},
)

var distributionTable = newTable("distribution", "Latency distributions", "target.latency, target.connect, target.phases[].latency, target.stream.first_event, target.stream.gap, target.phases[].first_event, target.phases[].gap",
	"A distribution is exactly one of {fixed: D}, {uniform: [A, B]}, {exponential: {min: A, mean: M}}, "+
		"{p50: A, p99: B} (or {lognormal: {p50: A, p99: B}}) and {profile: FILE}.",
	field{Name: "fixed", decode: (*distReader).fixed, Type: "duration", Default: "—",
		Doc: "Every draw is this long.", Example: "fixed: 20ms"},
	field{Name: "uniform", decode: (*distReader).uniform, Type: "[low, high], durations", Default: "—",
		Doc: "Uniform between low and high.", Example: "uniform: [10ms, 30ms]"},
	field{Name: "exponential", decode: (*distReader).exponential, Type: "mapping", Default: "—", Table: "exponential", Shape: shapeMapping,
		Doc: "min plus an exponential draw with the given mean.", Example: "exponential: {min: 10ms, mean: 5ms}"},
	field{Name: "lognormal", decode: (*distReader).lognormal, Type: "mapping", Default: "—", Table: "lognormal", Shape: shapeMapping,
		Doc: "The lognormal through p50 and p99: the long form of {p50, p99}.", Example: "lognormal: {p50: 80ms, p99: 400ms}"},
	field{Name: "p50", decode: (*distReader).p50, Type: "duration above 0", Default: "—",
		Doc: "With p99: the lognormal whose median is p50 and whose 99th percentile is p99.", Example: "p50: 80ms\np99: 400ms"},
	field{Name: "p99", Type: "duration, from p50 to a million times p50", Default: "—",
		Doc: "The 99th percentile of the lognormal; needs p50.", Example: "p50: 80ms\np99: 400ms"},
	field{Name: "profile", decode: (*distReader).profile, Type: "path of a probe profile, relative to the scenario file", Default: "—",
		Doc:     "Replays a measured latency distribution: the total-latency histogram of `patience probe --save FILE`, sampled through its inverse CDF.",
		Example: "profile: probe.json"},
)

var exponentialTable = newTable("exponential", "exponential", "a distribution's exponential",
	"min + Exp(mean): a floor plus an exponential tail.",
	field{Name: "min", Type: "duration", Default: FormatDuration(0),
		Doc: "The shortest draw.", Example: "min: 10ms\nmean: 5ms"},
	field{Name: "mean", Type: "duration above 0", Default: "required",
		Doc: "The mean above min.", Example: "mean: 5ms"},
)

var lognormalTable = newTable("lognormal", "lognormal", "a distribution's lognormal",
	"The lognormal through two quantiles: σ = (ln p99 − ln p50) / 2.326.",
	field{Name: "p50", Type: "duration above 0", Default: "required",
		Doc: "The median.", Example: "p50: 80ms\np99: 400ms"},
	field{Name: "p99", Type: "duration, from p50 to a million times p50", Default: "required",
		Doc: "The 99th percentile.", Example: "p50: 80ms\np99: 400ms"},
)

var capacityTable = newTable("capacity", "target.capacity", "target.capacity",
	"A server with workers concurrent slots and a FIFO queue.",
	field{Name: "workers", Type: intType(1, maxCount), Default: "required",
		Doc: "Requests the target serves at once.", Example: "workers: 64"},
	field{Name: "queue", Type: intType(0, maxQueue), Default: strconv.Itoa(Capacity{}.Queue) + " (no queue)",
		Doc: "Requests that wait for a worker; one more is answered 503 at once.", Example: "workers: 64\nqueue: 1000"},
)

var phaseTable = newTable("phase", "target.phases[]", "target.phases[]",
	"A time window that changes the target: its latency (a stream's first_event or gap), faults, or a stall. A phase must change "+
		"something, must start before the run ends (duration + drain) and must not overlap another.",
	field{Name: "name", Type: "string", Default: fmt.Sprintf(phaseNameFormat, 1) + ", " + fmt.Sprintf(phaseNameFormat, 2) + ", … by place",
		Doc: "Labels the phase in reports and in serve's stats.", Example: "name: brown-out"},
	field{Name: "at", Type: "duration", Default: "required",
		Doc: "When the phase starts, from the start of the run.", Example: "at: 2m"},
	field{Name: "for", Type: "duration above 0", Default: "required",
		Doc: "How long the phase lasts.", Example: "for: 30s"},
	field{Name: "latency", Type: "distribution", Default: "the target's latency", Table: "distribution", Shape: shapeMapping,
		Doc: "Replaces the target's latency during the phase.", Example: "latency: {fixed: 6s}"},
	field{Name: "faults", Type: "list of fault mappings", Default: "none", Table: "fault", Shape: shapeList,
		Doc:     "Injected into a share of the attempts that arrive during the phase. The faults of a phase share one draw per attempt, tried in order, so their shares add up (at most 100%).",
		Example: "faults:\n  - {status: 503, percent: 50%, retry_after: 2s}\n  - {reset: 5%}"},
	field{Name: "first_event", Type: "distribution", Default: "the stream's first_event", Table: "distribution", Shape: shapeMapping,
		Doc:     "Replaces a stream target's first_event during the phase (a slow first token under load); needs target.stream.",
		Example: "first_event: {uniform: [60s, 120s]}"},
	field{Name: "gap", Type: "distribution", Default: "the stream's gap", Table: "distribution", Shape: shapeMapping,
		Doc:     "Replaces a stream target's gap during the phase; needs target.stream.",
		Example: "gap: {p50: 200ms, p99: 2s}"},
	field{Name: "stall", Type: "boolean", Default: "false",
		Doc:     "The server serves nothing during the phase while requests keep arriving and queueing (a GC pause, a lost primary); work resumes when it ends. storm's --outage 10s@60s.",
		Example: "stall: true"},
)

var faultTable = newTable("fault", "target.phases[].faults[]", "target.phases[].faults[]",
	"A fault is exactly one of {hang: P%}, {reset: P%}, {refuse: P%}, {drip: P%, every: D, bytes: N, size: N} or {status: N, percent: P%, retry_after: …}. "+
		"serve plays a drip on the wire and replay, storm and check simulate it: the head at once, then the body at its pace, ended by a total timeout or by a read timeout the pace reaches.",
	field{Name: "hang", decode: (*faultReader).hang, Type: "percentage", Default: "—",
		Doc: "This share of attempts is never answered (only a timeout ends them).", Example: "hang: 100%"},
	field{Name: "reset", decode: (*faultReader).reset, Type: "percentage", Default: "—",
		Doc: "This share has its connection reset after the request was sent: the outcome is unknown.", Example: "reset: 5%"},
	field{Name: "refuse", decode: (*faultReader).refuse, Type: "percentage", Default: "—",
		Doc: "This share has its connection refused: the request never left.", Example: "refuse: 5%"},
	field{Name: "drip", decode: (*faultReader).drip, Type: "percentage", Default: "—",
		Doc: "This share gets 200 with its head (and Content-Length) at once, then the body `bytes` at a time with `every` before each piece: a read timeout and a total timeout part ways. " +
			"A read_timeout above `every` never ends it; a timeout: below the whole body does. Like a status fault, it answers before the application: no capacity, no idempotency key, no side effect.",
		Example: "drip: 100%\nevery: 2s"},
	field{Name: "every", Type: "duration above 0", Default: "required (drip faults only)",
		Doc:     "The wait before each piece of a drip fault's body, scaled by serve's --speed (and by replay --live's); all the pieces together at most " + FormatDuration(maxDripTime) + ".",
		Example: "drip: 100%\nevery: 500ms"},
	field{Name: "bytes", Type: "whole number 1–size", Default: fmt.Sprint(defaultDripBytes),
		Doc: "How many bytes of a drip fault's body each piece carries.", Example: "drip: 100%\nevery: 1s\nbytes: 8"},
	field{Name: "size", Type: "whole number 1–1048576", Default: fmt.Sprint(defaultDripSize),
		Doc: "The length of a drip fault's body in bytes (its Content-Length), at most 1 MiB.", Example: "drip: 100%\nevery: 1s\nsize: 256"},
	field{Name: "status", decode: (*faultReader).status, Type: "HTTP status 100–599", Default: "—",
		Doc: "This status is the answer.", Example: "status: 503"},
	field{Name: "percent", Type: "percentage", Default: pctText(defaultStatusPercent),
		Doc: "The share of attempts a status fault answers (status faults only).", Example: "status: 503\npercent: 50%"},
	field{Name: "retry_after", Type: "duration, or {date: ±D}", Default: "no header", Table: "retry_after", Shape: shapeMapping,
		Doc:     "A Retry-After header sent with a status fault (RFC 9110 §10.2.3): delay-seconds, or the HTTP-date form {date: +1s}.",
		Example: "status: 429\nretry_after: 2s"},
)

var retryAfterTable = newTable("retry_after", "retry_after: {date}", "target.phases[].faults[].retry_after",
	"The HTTP-date form of a fault's Retry-After.",
	field{Name: "date", Type: "offset such as +1s or -5s", Default: "required",
		Doc: "The date sent is this far from the response; a date in the past means retry now.", Example: "date: +1s"},
)

var expectTable = newTable("expect", "expect", "expect.POLICY, expect.*",
	"Expectations on one policy's replay, each a comparison: an operator (>=, <=, >, <, ==; none means ==) "+
		"and a value. `patience check` replays the scenario and reports a missed one as PT100.",
	field{Name: "success_rate", Type: "comparison with a percentage", Default: "none",
		Doc: "The share of logical requests that succeeded.", Example: "success_rate: \">= 99%\""},
	field{Name: "amplification", Type: "comparison with a number", Default: "none",
		Doc: "Calls to the dependency per logical request.", Example: "amplification: \"<= 2\""},
	field{Name: "duplicates", Type: "comparison with a number", Default: "none",
		Doc: "Extra executions of non-idempotent requests sent without a key (a customer charged twice).", Example: "duplicates: 0"},
	field{Name: "worker_saturation", Type: "comparison with a percentage", Default: "none",
		Doc: "The peak share of a client's workers busy at once.", Example: "worker_saturation: \"< 100%\""},
)

// checkFileKeys are the top-level keys of a `patience check` file: the keys check/load.go's
// loader.root passes to Mapping. scenario cannot import check (the layout's direction), so
// the list is written here; TestCheckFileKeys (scenario_test) compares it with the check
// loader's own "want one of" list. No scenario key is among them.
var checkFileKeys = []string{"max_amplification", "dependencies", "scenarios", "rules"}

// isCheckFile says whether n, a document's top-level node, is a check file's mapping: it
// has a check file's key and no scenario key (a misspelt key beside them does not hide what
// the file is; a scenario with a stray dependencies: is still a scenario).
func isCheckFile(n *yaml.Node) bool {
	n = ResolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	check := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if slices.Contains(scenarioTable.keys, k) {
			return false
		}
		check = check || slices.Contains(checkFileKeys, k)
	}
	return check
}

// checkFileError is the error for a check file given where a scenario or a policy file
// belongs (replay, serve, storm, --policy): what it is and the command that reads it, rather
// than "unknown field" at its first key.
func checkFileError(file string) *Error {
	return &Error{File: file, Msg: "this is a check file: use patience check " + file}
}
