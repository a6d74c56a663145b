package check

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
)

// FailureClass is one way the dependency at the bottom of a chain can fail. Each layer of a
// chain retries a different set of them (an Istio sidecar retries connect failures by default,
// ingress-nginx errors and timeouts, Laravel's Http::retry any non-2xx), so check multiplies
// attempts per class (docs/formats.md#retries-nobody-wrote, #attempts-across-layers), never one product for all.
type FailureClass string

// The failure classes of docs/design.md §3's chains[].attempts, in their JSON order.
const (
	// FailConnect is a refused connection or a connect timeout: the request never left.
	FailConnect FailureClass = "connect"
	// FailReset is a connection reset after the request was sent.
	FailReset FailureClass = "reset"
	// FailTimeout is a dependency that accepts the request and never answers (a hang).
	FailTimeout FailureClass = "timeout"
	// Fail5xx is a 500 (any 5xx but 503; 502 and 504 from a proxy count here too).
	Fail5xx FailureClass = "5xx"
	// Fail503 is a 503 Service Unavailable.
	Fail503 FailureClass = "503"
	// Fail429 is a 429 Too Many Requests.
	Fail429 FailureClass = "429"
	// Fail4xx is a 400 (any 4xx but 408, 409 and 429: the request itself is wrong).
	Fail4xx FailureClass = "4xx"
)

// FailureClasses lists the classes in their JSON order.
var FailureClasses = []FailureClass{FailConnect, FailReset, FailTimeout, Fail5xx, Fail503, Fail429, Fail4xx}

// Attempts holds a number per failure class: the attempts a layer makes for a failure of that
// class, or the attempts that reach the bottom of a chain for one logical request. -1 means
// unlimited. Ratio retry budgets make fractional values (1.2 = at most 20% more).
type Attempts struct {
	Connect float64 `json:"connect"`
	Reset   float64 `json:"reset"`
	Timeout float64 `json:"timeout"`
	S5xx    float64 `json:"5xx"`
	S503    float64 `json:"503"`
	S429    float64 `json:"429"`
	S4xx    float64 `json:"4xx"`
}

// Of returns the value for class c.
func (a *Attempts) Of(c FailureClass) float64 { return *a.at(c) }

func (a *Attempts) at(c FailureClass) *float64 {
	switch c {
	case FailConnect:
		return &a.Connect
	case FailReset:
		return &a.Reset
	case FailTimeout:
		return &a.Timeout
	case Fail5xx:
		return &a.S5xx
	case Fail503:
		return &a.S503
	case Fail429:
		return &a.S429
	}
	return &a.S4xx
}

// Chain is the path one call to a dependency takes through the layers that retry it,
// outermost first (an ingress, the application's own policy, its egress sidecar), and the
// attempts that reach the dependency per failure class.
type Chain struct {
	Dependency string       `json:"dependency"`
	Layers     []ChainLayer `json:"layers"`
	// Attempts are the attempts at the bottom for one logical request, per class of failure
	// at the dependency, each layer's count capped by its own timeouts that include retries
	// and by ratio retry budgets; Uncapped is the plain product.
	Attempts Attempts `json:"attempts"`
	Uncapped Attempts `json:"uncapped"`
	// Assumptions say how a layer that gives up answers the layer above.
	Assumptions []string `json:"assumptions,omitempty"`

	// factors[c] are each layer's contribution for class c, outermost first.
	factors map[FailureClass][]factor
	dep     *Dependency
	file    *File
	// call is the source call whose code layers open the chain (kind "code"), nil for none.
	call *Call
}

// factor is what one layer did with one failure class in a chain.
type factor struct {
	layer    *ChainLayer
	seen     FailureClass // the class the layer saw (a proxy turns a connect failure into 503)
	capped   float64      // attempts after the layer's caps (math.Inf = unlimited)
	uncapped float64
	capNote  string // why capped is below uncapped
}

// ChainLayer is one layer of a chain: a resource read from a real config file (a
// VirtualService route, an Ingress, a gRPC methodConfig...), the dependency's own policy
// (kind "patience") or a job's queue (kind "queue").
type ChainLayer struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	File string `json:"file"`
	Line int    `json:"line"`
	// Attempts are what this layer makes when it sees a failure of each class.
	Attempts Attempts `json:"attempts"`
	// Defaults name what the file left unsaid and whose default filled it in.
	Defaults []string `json:"defaults"`
	// Timeouts are the timeouts check read for the layer (chain_timeouts.go).
	Timeouts LayerTimeouts `json:"timeouts"`
	// Implementation names who translates a Gateway API route ("istio", "envoy-gateway", or
	// "unknown": the more of the two per class), and ImplementationFrom why.
	Implementation     string `json:"implementation,omitempty"`
	ImplementationFrom string `json:"implementation_from,omitempty"`

	pos policy.Pos
	// runs marks a layer of kind "code" (source_chain.go) each of whose attempts is a run of
	// its own (a queue job's tries), which PT004 leaves to the job's timeout as it does a
	// queue layer and PT009 keeps. unknownWait and unknownJitter mark a code layer whose code
	// does not say its backoff or its jitter: PT013 and PT006 do not judge what the reader
	// could not see.
	runs                       bool
	unknownWait, unknownJitter bool
	// pol holds the layer in the shared policy model: Timeout per try (0 = none),
	// ReadTimeout the bound on each silence of a try (ingress-nginx's proxy-read-timeout),
	// Deadline the timeout that includes retries (Envoy/Istio route timeout, Linkerd,
	// Gateway API request timeout, gRPC deadline), Retry for backoff and jitter, Budget and
	// Breaker.
	pol *policy.Policy
	// retry is the attempts per class (absent = 1).
	retry map[FailureClass]int
	// retryAt is where the retry count was set, or the resource that left it to a default;
	// retryWhy says so in the format's words ("Istio default: 2 retries on connect-failure
	// (no `retries` in partner-vs.yaml)"); retryDefault marks a default.
	retryAt      policy.Pos
	retryWhy     string
	retryDefault bool
	// budget is a ratio retry budget (retries ≤ budget × requests; 0 = none), budgetWhy
	// names it.
	budget    float64
	budgetWhy string
	answer    answerer
	// unsentOnly is set for a layer that retries a non-idempotent request only when it never
	// reached the dependency (nginx without non_idempotent): a connect failure, never a
	// reset, timeout or answer.
	unsentOnly bool
	// checks are the format's findings, run by the catalogue's layer rules.
	checks layerChecks
	// hedge is set for a layer that hedges (gRPC hedgingPolicy): its attempts overlap.
	hedge *hedging
	// idle bounds each silence of the whole request at this layer, across its tries (Envoy's
	// stream_idle_timeout, an ALB's idle timeout; 0 = none): LayerTimeouts.IdleMs.
	idle time.Duration
	// unloadable is set for a layer its own client cannot load (an AWS profile with a value
	// the SDK rejects, not the selected one): a via: that names it is this input error.
	unloadable error
}

// hedging is a layer that sends its attempts without waiting for the previous one to fail
// (gRFC A6 hedgingPolicy): attempt k starts k·delay after the first, sooner when a non-fatal
// failure comes back first, and all are cancelled by a fatal status or the deadline.
type hedging struct {
	delay    time.Duration
	attempts int
	nonFatal map[FailureClass]bool
}

// answerer is how a layer that gives up answers the layer above
// (docs/formats.md#attempts-across-layers): what class of failure the layer above sees.
type answerer int

const (
	// answerApp: an application answers 500 after its retries, whatever failed below (an
	// assumption: some map a 4xx or 429 through; none we read says so).
	answerApp answerer = iota
	// answerEnvoy: Envoy, and the Istio, Gateway API and Linkerd proxies, answer 503 for a
	// connect failure or reset ("upstream connect error or disconnect/reset before headers")
	// and 504 for a timeout; an upstream status passes through.
	answerEnvoy
	// answerNginx: nginx answers 502 for an error and 504 for a timeout; statuses pass.
	// Linkerd's proxy is assumed to answer the same way (no source docs/formats.md cites says otherwise).
	answerNginx
)

// forever is a duration that never ends: a hung dependency under layers without timeouts.
const forever = time.Duration(math.MaxInt64)

// flow is the state of one failure class as it travels up a chain: the class the next layer
// up sees, how long the stack below takes to answer, and the attempts at the bottom per
// request entering it.
type flow struct {
	class    FailureClass
	dur      time.Duration
	capped   float64
	uncapped float64
}

// maxStarts bounds the attempts counted within a deadline.
const maxStarts = 10000

// pass applies the layer to the failure coming from below. A per-try timeout shorter than
// the stack below turns any failure into a timeout at this layer, and then only the bottom
// attempts started within the try count (capped: the stack's attempts are assumed spread
// evenly over its give-up time); the uncapped product counts them all, as work that goes on
// after the layer above gave up (PHP keeps running).
func (l *ChainLayer) pass(in flow) (flow, factor) {
	if l.hedge != nil {
		return l.passHedged(in)
	}
	seen, try, below := in.class, in.dur, in.capped
	if t := l.tryTimeout(); t > 0 && in.dur > t {
		seen, try = FailTimeout, t
		if in.dur != forever && in.dur > 0 {
			below = math.Min(in.capped, math.Ceil(in.capped*float64(t)/float64(in.dur)))
		}
	}
	n := l.retryOf(seen)
	f := factor{layer: l, seen: seen}
	unc := float64(n)
	if n == policy.Unlimited {
		unc = math.Inf(1)
	}
	capped := unc
	if try == forever {
		// The first try never ends: the layer never sees a failure to retry.
		capped, unc, f.capNote = 1, 1, "no timeout: the first try never ends"
	}
	if dl := l.pol.Deadline; dl > 0 && try != forever {
		if fits := l.startsWithin(try, dl, n); fits < capped {
			capped, f.capNote = fits, fmt.Sprintf("%s in the %s timeout", countNoun(fits, "attempt fits", "attempts fit"), units.Duration(dl))
		}
	}
	if l.budget > 0 && capped > 1+l.budget {
		capped, f.capNote = 1+l.budget, l.budgetWhy
	}
	f.capped, f.uncapped = capped, unc
	out := flow{capped: capped * below, uncapped: unc * in.uncapped}
	switch {
	case try == forever && l.pol.Deadline > 0:
		out.dur = l.pol.Deadline
	case try == forever:
		out.dur = forever
	default:
		k := int(math.Min(capped, maxStarts))
		total := time.Duration(k) * try
		for _, w := range l.waits(k) {
			total += w
		}
		if dl := l.pol.Deadline; dl > 0 && total > dl {
			total = dl
		}
		out.dur = total
	}
	out.class = l.answers(seen, out.dur)
	return out, f
}

// tryTimeout is what ends one try of the layer on a failure from below: its per-try
// timeout, else its read timeout (ingress-nginx's proxy-read-timeout). A failure from below
// sends nothing until it is over — a hang never, a stack that retries only once it gives up —
// so its whole duration is one silence, and a read timeout ends it as a per-try timeout
// would (from the request's write rather than the connect: the connect is the arithmetic's
// own class, FailConnect).
func (l *ChainLayer) tryTimeout() time.Duration {
	if l.pol.Timeout > 0 {
		return l.pol.Timeout
	}
	return l.pol.ReadTimeout
}

// passHedged applies a hedging layer (gRFC A6) to the failure from below. The first attempt
// starts at once and attempt k+1 starts one step after attempt k: the hedgingDelay, or the
// failure's own duration when that is shorter and its class is non-fatal (the next hedge is
// sent at once). Attempts start until the layer stops: a fatal failure stops it when it comes
// back (the hedges already sent have reached the server), the deadline stops everything, and
// a hang stops nothing but the deadline. Without a deadline every hedge of a hang goes out:
// they overlap, so no try has to end first. The uncapped count ignores the deadline.
func (l *ChainLayer) passHedged(in flow) (flow, factor) {
	h := l.hedge
	seen, dur, below := in.class, in.dur, in.capped
	dl := l.pol.Deadline
	if dl > 0 && dur > dl {
		// The deadline passes before the failure comes back: a hang as far as this layer
		// sees; each hedge's stack below runs for at most the deadline.
		seen = FailTimeout
		if dur != forever && dur > 0 {
			below = math.Min(in.capped, math.Ceil(in.capped*float64(dl)/float64(dur)))
		}
		dur = forever
	}
	step, stop := h.delay, dur // stop: when the layer stops starting hedges (forever = never)
	if h.nonFatal[seen] && dur != forever {
		step, stop = min(h.delay, dur), forever
	}
	starts := func(end time.Duration) (int, time.Duration) {
		n, last := 1, time.Duration(0)
		for k := 1; k < h.attempts; k++ {
			at := time.Duration(k) * step
			if step > 0 && at >= end {
				break
			}
			n, last = k+1, at
		}
		return n, last
	}
	end := stop
	if dl > 0 && dl < end {
		end = dl
	}
	capped, last := starts(end)
	unc, _ := starts(stop)
	f := factor{layer: l, seen: seen, capped: float64(capped), uncapped: float64(unc)}
	if capped < unc {
		f.capNote = fmt.Sprintf("%s in the %s deadline, one every %s", countNoun(float64(capped), "hedge starts", "hedges start"), units.Duration(dl), units.Duration(step))
	}
	if l.budget > 0 && f.capped > 1+l.budget {
		f.capped, f.capNote = 1+l.budget, l.budgetWhy
	}
	out := flow{capped: f.capped * below, uncapped: f.uncapped * in.uncapped}
	switch {
	case dur == forever && dl > 0:
		out.dur = dl
	case dur == forever:
		out.dur = forever
	default:
		out.dur = last + dur
		if dl > 0 && out.dur > dl {
			out.dur = dl
		}
	}
	out.class = l.answers(seen, out.dur)
	return out, f
}

// startsWithin counts the attempts that start before dl: attempt k starts after k tries of
// length try and the k backoff waits before it (d(n) before jitter).
func (l *ChainLayer) startsWithin(try, dl time.Duration, n int) float64 {
	if n == policy.Unlimited || n > maxStarts {
		n = maxStarts
	}
	waits := l.waits(n)
	var start time.Duration
	k := 1
	for ; k < n; k++ {
		start += try
		if k-1 < len(waits) {
			start += waits[k-1]
		}
		if start >= dl {
			break
		}
	}
	if n == maxStarts && k == n {
		return math.Inf(1)
	}
	return float64(k)
}

// waits are the backoff waits before retries 1..n-1, before jitter.
func (l *ChainLayer) waits(n int) []time.Duration {
	r := l.pol.Retry
	if n <= 1 || r.Backoff == "" || r.Backoff == policy.BackoffNone {
		return nil
	}
	r.Jitter, r.JitterFactor = policy.JitterNone, 0
	return r.BackoffWaits(n)
}

func (l *ChainLayer) retryOf(c FailureClass) int {
	if n, ok := l.retry[c]; ok && (n >= 1 || n == policy.Unlimited) {
		return n
	}
	return 1
}

// answers is the class the layer above sees once this layer gave up on seen.
func (l *ChainLayer) answers(seen FailureClass, dur time.Duration) FailureClass {
	if dur == forever {
		return FailTimeout // still hanging
	}
	switch l.answer {
	case answerEnvoy:
		switch seen {
		case FailConnect, FailReset:
			return Fail503
		case FailTimeout:
			return Fail5xx // 504
		}
		return seen
	case answerNginx:
		switch seen {
		case FailConnect, FailReset, FailTimeout:
			return Fail5xx // 502, 504
		}
		return seen
	}
	return Fail5xx
}

// assumptionText says how each kind of layer answers when it gives up.
var assumptionText = map[answerer]string{
	answerApp:   "an application answers 500 once its own retries are spent, whatever failed below",
	answerEnvoy: "Envoy-based proxies answer 503 for a connect failure or reset and 504 for a timeout; other statuses pass through",
	answerNginx: "nginx and an AWS ALB (and, assumed, Linkerd) answer 502 for an upstream error and 504 for a timeout; other statuses pass through",
}

// compute fills the chain's attempts, per class of failure at the bottom.
func (ch *Chain) compute() {
	ch.factors = map[FailureClass][]factor{}
	seenAnswer := map[answerer]bool{}
	for i := range ch.Layers {
		l := &ch.Layers[i]
		for _, c := range FailureClasses {
			*l.Attempts.at(c) = countOut(float64(l.retryOf(c)), l.retryOf(c) == policy.Unlimited)
		}
		if l.Defaults == nil {
			l.Defaults = []string{}
		}
		l.Timeouts = layerTimeouts(l.pol, l.idle)
		if i > 0 && !seenAnswer[l.answer] {
			seenAnswer[l.answer] = true
		}
	}
	for _, a := range []answerer{answerEnvoy, answerNginx, answerApp} {
		if seenAnswer[a] {
			ch.Assumptions = append(ch.Assumptions, assumptionText[a])
		}
	}
	for _, c := range FailureClasses {
		f := flow{class: c, capped: 1, uncapped: 1}
		if c == FailTimeout {
			f.dur = forever
		}
		fs := make([]factor, len(ch.Layers))
		for i := len(ch.Layers) - 1; i >= 0; i-- {
			f, fs[i] = ch.Layers[i].pass(f)
		}
		ch.factors[c] = fs
		*ch.Attempts.at(c) = countOut(f.capped, math.IsInf(f.capped, 1))
		*ch.Uncapped.at(c) = countOut(f.uncapped, math.IsInf(f.uncapped, 1))
	}
}

// countOut is a count for JSON: -1 for unlimited, else rounded to three decimals.
func countOut(v float64, unlimited bool) float64 {
	if unlimited || math.IsInf(v, 1) {
		return -1
	}
	return math.Round(v*1000) / 1000
}

// countText renders a count: "9", "1.2", "unlimited".
func countText(v float64) string {
	if v < 0 || math.IsInf(v, 1) {
		return "unlimited"
	}
	return fmtNum(v)
}

// Label names a layer in messages and reports: "Istio partner", "ingress-nginx shop",
// "policy partner".
func (l *ChainLayer) Label() string {
	if l.Kind == kindCode {
		// A layer in code is named by its library and where it is set: "laravel-http
		// (SyncJob.php:42)".
		return fmt.Sprintf("%s (%s:%d)", l.Name, filepath.Base(l.File), l.Line)
	}
	return fmt.Sprintf("%s %s", kindTitle(l.Kind), l.Name)
}

func (l *ChainLayer) label() string { return l.Label() }

// kindTitle is the format's name as its users write it.
func kindTitle(kind string) string {
	if t, ok := kindTitles[kind]; ok {
		return t
	}
	return kind
}

var kindTitles = map[string]string{
	"patience":      "policy",
	"queue":         "queue",
	"ingress-nginx": "ingress-nginx",
	"nginx":         "nginx",
	"alb":           "ALB",
	"istio":         "Istio",
	"envoy":         "Envoy",
	"gateway-api":   "Gateway API HTTPRoute",
	"linkerd":       "Linkerd",
	"grpc":          "gRPC",
	"dapr":          "Dapr",
	"resilience4j":  "resilience4j",
	"aws-sdk":       "AWS SDK",
	kindCode:        "code",
}

// factorsText renders a class's product: "ingress-nginx shop 1 × policy shop 3 × Istio
// partner 3 (Istio default: ...)".
func (ch *Chain) factorsText(c FailureClass) string {
	parts := make([]string, 0, len(ch.Layers))
	for _, f := range ch.factors[c] {
		s := fmt.Sprintf("%s %s", f.layer.label(), countText(f.capped))
		var notes []string
		if f.seen != c {
			notes = append(notes, "sees "+string(f.seen))
		}
		if f.uncapped > 1 && f.layer.retryWhy != "" {
			notes = append(notes, f.layer.retryWhy)
		}
		if f.capNote != "" && f.capped < f.uncapped {
			notes = append(notes, f.capNote)
		}
		if len(notes) > 0 {
			s += " (" + strings.Join(notes, "; ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " × ")
}

// mainFactor is the layer PT009 points at for class c: the one that multiplies most, a
// default before a written value (the line to change is the one nobody wrote), the innermost
// on a tie.
func (ch *Chain) mainFactor(c FailureClass) *ChainLayer {
	var best *factor
	for i := range ch.factors[c] {
		f := &ch.factors[c][i]
		if f.layer.runs && !math.IsInf(f.capped, 1) && ch.othersRetry(c, f.layer) {
			// A job's tries, when they are bounded, are the layer to keep (docs/design.md §8
			// PT009: "for a job, the queue"): the line to change is a retry inside it.
			continue
		}
		if best == nil || f.capped > best.capped || (f.capped == best.capped && (f.layer.retryDefault || !best.layer.retryDefault)) {
			best = f
		}
	}
	if best == nil {
		return nil
	}
	return best.layer
}

// othersRetry says whether a layer of the chain other than l multiplies class c.
func (ch *Chain) othersRetry(c FailureClass, l *ChainLayer) bool {
	for _, f := range ch.factors[c] {
		if f.layer != l && f.capped > 1 {
			return true
		}
	}
	return false
}

// countNoun is "1 attempt fits" or "3 attempts fit".
func countNoun(n float64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return countText(n) + " " + many
}
