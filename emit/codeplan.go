package emit

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/profile"
)

// codePlan is the recommendation resolved for one program of a code target written here
// (requests, httpx, aiohttp, go): the figures its knobs are written from and, in plain words,
// what the call's loop bounds. It decides nothing: every figure is Input's, and every
// sentence says what the recommendation already says (docs/design.md §5 and §7), so the
// Python and the Go programs describe the same call in the same words.
type codePlan struct {
	Target Target
	// By is the text's first words: Input.GeneratedBy.
	By     string
	Method string
	URL    string
	// Connect, Read and Total are the per-attempt timeouts (0: none recommended).
	Connect, Read, Total time.Duration
	// Budget bounds the whole logical call (0: a job, which has no caller waiting).
	Budget time.Duration
	// Attempts counts the first try (1: no retry).
	Attempts int
	// Base and Cap are the full-jitter backoff's: retry n waits U[0, min(Cap, Base·2^(n-1))].
	Base, Cap time.Duration
	// Retried are the statuses retried (429 only with a Retry-After that fits the budget).
	Retried []int
	// RetryUnknown: timeouts and resets are retried; SendsKey: an Idempotency-Key goes out.
	RetryUnknown, SendsKey bool
	// JobCaller: the call runs in a queue job; Job is its queue design (nil when none).
	JobCaller bool
	Job       *profile.JobDesign
	// FirstEventBudget: a stream whose budget reads its first event
	// (profile.Recommendation.BudgetReads): the budget bounds when an attempt may start and,
	// through the read timeout, each wait for the first event; not the stream, whose length
	// is the content's, so the attempt keeps Total (none when the stream is unbounded).
	FirstEventBudget bool
}

func newCodePlan(t Target, in Input) codePlan {
	r := in.Retry()
	return codePlan{
		Target: t, By: in.GeneratedBy(t), Method: in.MethodOrGet(), URL: in.URL,
		Connect: in.Connect(), Read: in.Read(), Total: in.Timeout(), Budget: in.Budget(),
		Attempts: r.MaxAttempts, Base: r.Base, Cap: r.Cap,
		Retried: RetriedStatuses, RetryUnknown: in.RetryUnknown(), SendsKey: in.SendsKey(),
		JobCaller: in.Rec.Caller.Kind == profile.CallerJob, Job: in.Rec.Job,
		FirstEventBudget: in.Rec.BudgetReads == profile.BudgetReadsFirstEvent,
	}
}

// HasBody says whether the method sends a body (re-sent unchanged on every attempt).
func (p codePlan) HasBody() bool {
	switch p.Method {
	case "GET", "HEAD", "OPTIONS", "DELETE", "TRACE":
		return false
	}
	return true
}

// IsJob says whether the call runs in a queue job (one attempt per run, the queue retries).
func (p codePlan) IsJob() bool { return p.JobCaller }

// header is the comment block every program opens with: what wrote it, the recommendation's
// figures, and what its exit status means. Each string is one paragraph.
func (p codePlan) header() []string {
	paras := []string{
		fmt.Sprintf("%s for %s %s, from its recommendation: %s.", p.By, p.Method, p.URL, p.figures()),
		p.loopSummary(),
	}
	if p.Job != nil {
		paras = append(paras, p.queueSummary())
	}
	return append(paras, "Exit status: 0 on a 2xx (the status is printed); 1 on a timeout or when the call gives up, with why on stderr.")
}

// figures are the recommended timeouts in words.
func (p codePlan) figures() string {
	parts := []string{}
	if p.Connect > 0 {
		parts = append(parts, "connect timeout "+ms(p.Connect))
	} else {
		parts = append(parts, "no separate connect timeout")
	}
	if p.Read > 0 {
		parts = append(parts, "read timeout "+ms(p.Read))
	}
	if p.Total <= 0 {
		return strings.Join(parts, ", ") + ", no total timeout (the stream's length is unbounded: its silences bound it)"
	}
	return strings.Join(parts, ", ") + ", total timeout " + ms(p.Total) + " per attempt"
}

// loopSummary says how the attempts run.
func (p codePlan) loopSummary() string {
	if p.Attempts <= 1 {
		why := p.attemptsWhy()
		return strings.ToUpper(why[:1]) + why[1:] + "."
	}
	s := fmt.Sprintf("%d attempts (%s), full-jitter exponential backoff between them (retry n waits U[0, min(%s, %s·2^(n-1))])",
		p.Attempts, p.attemptsWhy(), ms(p.Cap), ms(p.Base))
	if p.Budget > 0 {
		s += fmt.Sprintf(", all within the caller's %s budget; a Retry-After is honoured while it fits what is left of it", ms(p.Budget))
	}
	return s + "; " + p.retriedWords() + "; " + p.unknownWords() + "."
}

// queueSummary is the queue design a job's program leaves to the queue.
func (p codePlan) queueSummary() string {
	j := p.Job
	s := fmt.Sprintf("The queue retries the job: %d %s", j.Tries, plural(j.Tries, "try", "tries"))
	if len(j.BackoffMs) > 0 {
		delays := make([]string, len(j.BackoffMs))
		for i, d := range j.BackoffMs {
			delays[i] = units.Millis(d)
		}
		s += fmt.Sprintf(", backoff %s, each + up to %g%% jitter", strings.Join(delays, ", "), j.JitterFactor*100)
	}
	return s + fmt.Sprintf("; job timeout %s per run; redelivery (retry_after, visibility timeout) %s, longer than the job timeout. Set these on your queue.",
		units.Millis(j.TimeoutMs), units.Millis(j.RetryAfterMs))
}

// attemptsWhy says why the call makes as many attempts as it does.
func (p codePlan) attemptsWhy() string {
	switch {
	case p.IsJob():
		return "one attempt per run of the job: the queue retries it, and a retry inside the run as well would multiply the calls"
	case !p.RetryUnknown && p.Attempts <= 1:
		return fmt.Sprintf("one attempt: a timed-out %s may have run, and retrying could do it twice (retry only with an Idempotency-Key)", p.Method)
	case p.Attempts <= 1:
		return "one attempt: the budget holds no second one"
	case p.Attempts == 2:
		return "the first try and one retry"
	}
	return fmt.Sprintf("the first try and %d retries", p.Attempts-1)
}

// retriedWords says which statuses are retried.
func (p codePlan) retriedWords() string {
	return statusList(p.Retried) + " retried, 429 only with a Retry-After that fits the budget; any other status ends the call"
}

// unknownWords says whether a failure of unknown outcome is retried, and why.
func (p codePlan) unknownWords() string {
	switch {
	case !p.RetryUnknown:
		return fmt.Sprintf("a timeout or a reset ends the call: the %s may have run", p.Method)
	case p.SendsKey:
		return "timeouts and resets retried: the Idempotency-Key lets the server run the call once"
	}
	return fmt.Sprintf("timeouts and resets retried: %s is idempotent", p.Method)
}

// The bounds of the loop's knobs, shared by every code target here (Setting.Bounds and the
// knob's comment say the same).
func (p codePlan) AttemptsBounds() string {
	return "how many attempts the call makes, the first included: " + p.attemptsWhy()
}

func (p codePlan) BudgetBounds() string {
	return "the whole call, every attempt and every backoff included (the caller's budget); a Retry-After that does not fit what is left ends the call"
}

func (p codePlan) BaseBounds() string {
	return "the backoff before retry n: U[0, min(cap, base·2^(n-1))] (full jitter)"
}

func (p codePlan) CapBounds() string { return "any one backoff" }

func (p codePlan) RetriedBounds() string { return "the statuses retried: " + p.retriedWords() }

func (p codePlan) UnknownBounds() string {
	return "whether a failure of unknown outcome is retried: " + p.unknownWords()
}

func (p codePlan) KeyBounds() string {
	return "nothing by itself: one key per logical call, sent unchanged on every attempt, so the server runs the call once"
}

// NoConnectWhy and NoReadWhy say why a timeout is not written.
func (p codePlan) NoConnectWhy() string {
	return "none recommended: one that survives a lost SYN would not be below the total, and the total bounds the connect"
}

func (p codePlan) NoReadWhy() string {
	return "none recommended: the total bounds every silence of the response"
}

// queueMissing is what a job's program cannot say in code: the queue's own settings.
func (p codePlan) queueMissing(lib string) string {
	q := p.queueSummary()
	return lib + " makes one call per run and has no queue: " + strings.ToLower(q[:1]) + q[1:]
}

// statusList is "502, 503 and 504".
func statusList(codes []int) string {
	s := make([]string, len(codes))
	for i, c := range codes {
		s[i] = strconv.Itoa(c)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ms is a duration in the reports' words ("300 ms", "2 s").
func ms(d time.Duration) string { return units.Millis(float64(d) / float64(time.Millisecond)) }

// wrapComment wraps paragraphs into comment lines of at most width columns, each starting
// with prefix ("# ", "// "), an empty comment line between paragraphs. Any run of white space,
// a newline included, is one space (commentSafe): a URL or a method cannot end the comment,
// nor make the source file unreadable.
func wrapComment(prefix string, width int, paras ...string) string {
	var b strings.Builder
	for i, para := range paras {
		if i > 0 {
			b.WriteString(strings.TrimRight(prefix, " ") + "\n")
		}
		for _, line := range wrapWords(commentSafe(para), width-utf8.RuneCountInString(prefix)) {
			b.WriteString(prefix + line + "\n")
		}
	}
	return b.String()
}

// wrapWords breaks s into lines of at most width characters, between words.
func wrapWords(s string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			out = append(out, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(out, line)
}

// commentSafe is s fit for a comment in Go and Python source: invalid UTF-8 becomes U+FFFD
// (both read UTF-8), and control characters and byte order marks (NUL is illegal in both, a
// BOM in Go past the start, a carriage return ends a Python line) become spaces.
func commentSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\uFEFF' {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}
