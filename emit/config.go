package emit

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/profile"
)

// The config targets (nginx, Envoy, Istio, Gateway API, Resilience4j, gRPC service config)
// write one plan, configPlan, each in its own knobs. What every one of them means by the
// recommendation (docs/design.md §7, issue 27 item 2):
//   - each attempt is bounded by the total timeout, its connect by the connect timeout and
//     each silence by the read timeout, where the format has such a knob;
//   - the logical call is bounded by a deadline: the caller's budget (interactive), else the
//     one attempt's total (a job runs once per run: its queue retries);
//   - attempts count the first try; a non-idempotent call without an Idempotency-Key makes
//     one (a timed-out POST may have run), and a job one per run;
//   - between attempts, full-jitter exponential backoff from profile.AssumedRetry.

// configPlan is the recommendation as the config targets write it.
type configPlan struct {
	in Input
	// connect, read and total are the recommended timeouts (0: none recommended).
	connect, read, total time.Duration
	// deadline bounds the whole logical call, retries and backoff included.
	deadline time.Duration
	// attempts counts the first try; retry is the backoff between attempts.
	attempts int
	retry    policy.Retry
	// unknown: timeouts and resets are retried (an idempotent method, or a key sent).
	unknown bool
	job     bool
}

// planOf derives the plan every config target writes from.
func planOf(in Input) configPlan {
	p := configPlan{in: in, connect: in.Connect(), read: in.Read(), total: in.Timeout(), retry: in.Retry(), unknown: in.RetryUnknown()}
	p.job = in.Rec.Caller.Kind == profile.CallerJob
	p.attempts = p.retry.MaxAttempts
	if p.job || !p.unknown {
		p.attempts = 1
	}
	p.deadline = in.Budget()
	if p.deadline <= 0 {
		// A job, or an interactive caller that gave no budget: the attempts and the
		// backoff between them at its worst (full jitter's bound is d(n) itself).
		p.deadline = time.Duration(p.attempts) * p.total
		for _, w := range p.waits() {
			p.deadline += w
		}
	}
	return p
}

// waits are the backoff bounds before each retry, d(1)…d(attempts−1), before jitter.
func (p configPlan) waits() []time.Duration {
	if p.attempts <= 1 {
		return nil
	}
	r := p.retry
	r.Jitter, r.JitterFactor = policy.JitterNone, 0
	return r.BackoffWaits(p.attempts)
}

// retries is attempts − 1.
func (p configPlan) retries() int { return p.attempts - 1 }

// connectOrTotal is the connect timeout to write where the format needs one: the recommended
// connect timeout, else the total (none recommended: the total bounds the connect).
func (p configPlan) connectOrTotal() time.Duration {
	if p.connect > 0 {
		return p.connect
	}
	return p.total
}

// connectWhy says what a connect timeout written as connectOrTotal bounds.
func (p configPlan) connectWhy() string {
	if p.connect > 0 {
		return "bounds the TCP (and TLS) connection set-up of each attempt"
	}
	return fmt.Sprintf("bounds the connection set-up; no separate connect timeout was recommended (one that survives a lost SYN is not below the %s total), so it is the total", units.Duration(p.total))
}

// readOrTotal is the read timeout to write where the format bounds silences only: the
// recommended read timeout, else the total (no read timeout was derived).
func (p configPlan) readOrTotal() time.Duration {
	if p.read > 0 {
		return p.read
	}
	return p.total
}

// attemptsWhy says why the plan makes the attempts it makes.
func (p configPlan) attemptsWhy() string {
	switch {
	case p.job:
		return "one attempt per run: the caller is a queue job, and the queue retries it (its tries and backoff are the queue's)"
	case !p.unknown:
		return fmt.Sprintf("one attempt: a %s without an Idempotency-Key that timed out may have run, and retrying could do it twice (send a key to allow a retry)", p.in.MethodOrGet())
	case p.in.SendsKey():
		return fmt.Sprintf("%s, the first included: the client sends one Idempotency-Key per logical call, unchanged on every attempt, so the server can tell a retry from a new %s", attemptsText(p.attempts), p.in.MethodOrGet())
	}
	return attemptsText(p.attempts) + ", the first included"
}

// deadlineWhy says what the deadline bounds and where it comes from.
func (p configPlan) deadlineWhy() string {
	switch {
	case p.job:
		return "bounds the one attempt of each run (the job's queue retries it)"
	case p.in.Budget() > 0:
		return fmt.Sprintf("bounds the whole call, retries and backoff included: the caller's %s budget", units.Duration(p.in.Budget()))
	}
	return "bounds the whole call, retries and backoff included: no caller budget was given, so the attempts and their backoff at worst"
}

// firstEventBudget says whether the caller's budget holds the waits for a stream's first
// event rather than the whole call (profile.Recommendation.BudgetReads): a deadline that
// spans the whole response would then cut streams that answered.
func (p configPlan) firstEventBudget() bool {
	return p.in.Rec.BudgetReads == profile.BudgetReadsFirstEvent
}

// clientDeadline is a Missing line for a target with no total timeout (nginx, an ALB): what
// it lacks, and where the caller's deadline belongs — around the whole call, or, for a stream
// whose budget reads its first event, around that wait.
func (p configPlan) clientDeadline(lacks string) string {
	if p.firstEventBudget() {
		return fmt.Sprintf("%s; the caller's %s budget holds its waits for a stream's first event — keep it in the client around that wait, not around the stream", lacks, units.Duration(p.deadline))
	}
	return fmt.Sprintf("%s; bound the whole call in the client with a %s deadline around it", lacks, units.Duration(p.deadline))
}

// backoffText describes the backoff between attempts.
func (p configPlan) backoffText() string {
	r := p.retry
	return fmt.Sprintf("exponential from %s ×%s, capped at %s, full jitter (each wait uniform in [0, d(n)])", units.Duration(r.Base), strconv.FormatFloat(r.Multiplier, 'f', -1, 64), units.Duration(r.Cap))
}

func attemptsText(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return strconv.Itoa(n) + " attempts"
}

// header is the comment block every config target starts with: what generated it, for which
// call, and the recommendation's figures.
func (p configPlan) header(target Target) []string {
	in := p.in
	read := "none derived"
	if p.read > 0 {
		read = units.Duration(p.read)
	}
	connect := "none (the total bounds it)"
	if p.connect > 0 {
		connect = units.Duration(p.connect)
	}
	caller := "an interactive caller"
	switch {
	case p.job:
		caller = "a queue job (one attempt per run; the queue retries)"
	case in.Budget() > 0:
		caller = "an interactive caller with a " + units.Duration(in.Budget()) + " budget"
	}
	total := "total " + units.Duration(p.total) + " per attempt"
	if p.total <= 0 {
		total = "no total (the stream's length is unbounded)"
	}
	lines := []string{
		in.GeneratedBy(target) + " from its recommendation for",
		fmt.Sprintf("%s %s, %s.", in.MethodOrGet(), in.URL, caller),
		fmt.Sprintf("Recommended: connect %s, read %s, %s; %s; deadline %s.", connect, read, total, attemptsText(p.attempts), units.Duration(p.deadline)),
	}
	if p.attempts > 1 {
		lines = append(lines, "Backoff between attempts: "+p.backoffText()+"; a Retry-After is honoured while it fits the budget.")
	}
	return lines
}

// configText builds a config file line by line: comments in the format's own syntax, knobs
// with their one comment each, and the Settings the emission lists.
type configText struct {
	b        strings.Builder
	comment  string // "#" for nginx and YAML
	settings []Setting
}

// line writes one line at indent (spaces).
func (c *configText) line(indent int, s string) {
	c.b.WriteString(strings.Repeat(" ", indent))
	c.b.WriteString(s)
	c.b.WriteByte('\n')
}

// note writes a comment, wrapped at 100 columns.
func (c *configText) note(indent int, s string) {
	for _, l := range wrapWords(s, 100-indent-len(c.comment)-1) {
		c.line(indent, c.comment+" "+l)
	}
}

// knob writes one knob: its comment saying what it bounds, then its line; and lists it.
func (c *configText) knob(indent int, knob, value, bounds, text string) {
	c.note(indent, knob+": "+bounds)
	c.line(indent, text)
	c.settings = append(c.settings, Setting{Knob: knob, Value: value, Bounds: bounds})
}

// knobs writes several knobs set on one line (nginx's server parameters): one comment each,
// then the line.
func (c *configText) knobs(indent int, text string, set ...Setting) {
	for _, s := range set {
		c.note(indent, s.Knob+": "+s.Bounds)
		c.settings = append(c.settings, s)
	}
	c.line(indent, text)
}

func (c *configText) String() string { return c.b.String() }

// Durations in each format's syntax.

// millis is whole milliseconds, rounded up so a bound is never written shorter than
// recommended.
func millis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// msText is "800ms": nginx, Spring (resilience4j) and Gateway API read it.
func msText(d time.Duration) string { return strconv.FormatInt(millis(d), 10) + "ms" }

// secondsText is a protobuf JSON Duration, seconds with the suffix s ("0.8s", "2s"): Envoy,
// gRPC service config; Istio reads it as a Go duration too.
func secondsText(d time.Duration) string {
	return strconv.FormatFloat(float64(millis(d))/1000, 'f', -1, 64) + "s"
}

// gepDuration is a Gateway API Duration (GEP-2257: up to four <number><unit> parts, each
// number at most 5 digits, units h, m, s, ms): "800ms", "2s", "1m30s500ms".
func gepDuration(d time.Duration) string {
	ms := millis(d)
	if ms == 0 {
		return "0s"
	}
	parts := []struct {
		unit string
		size int64
	}{{"h", 3600000}, {"m", 60000}, {"s", 1000}, {"ms", 1}}
	var b strings.Builder
	for _, p := range parts {
		if n := ms / p.size; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, p.unit)
			ms -= n * p.size
		}
	}
	return b.String()
}

// hostPort splits the URL's host into a host and a port (the scheme's default when none).
func (in Input) hostPort() (string, int) {
	u := in.parsed()
	port := 80
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err == nil {
			port = n
		}
	}
	return u.Hostname(), port
}

// retriedJoined is RetriedStatuses joined by sep, each with prefix ("http_502").
func retriedJoined(prefix, sep string) string {
	parts := make([]string, len(RetriedStatuses))
	for i, s := range RetriedStatuses {
		parts[i] = prefix + strconv.Itoa(s)
	}
	return strings.Join(parts, sep)
}
