package emit

// What the JavaScript, PHP and Java client programs (axios, fetch, Guzzle, Laravel, OkHttp)
// share: the recommendation's figures in whole milliseconds, the comment block every program
// starts with, and the template plumbing. Each target's own knobs, Settings and Missing are
// in its own file.

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/template"
	"unicode"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/profile"
)

// clientPlan is the recommendation as the programs write it: whole milliseconds, the attempts
// the method allows, the deadline around the logical call (0 for a job: the queue bounds
// the run), and the header comment's lines.
type clientPlan struct {
	Target       Target
	Library      string
	Method       string
	URL          string
	ConnectMs    int64 // 0: none recommended (the total bounds the connect)
	ReadMs       int64 // 0: none recommended
	TimeoutMs    int64
	Attempts     int
	BudgetMs     int64 // 0: a job caller, no deadline around the call
	BaseMs       int64
	CapMs        int64
	Statuses     []int
	RetryUnknown bool
	SendsKey     bool
	Job          *profile.JobDesign
	Header       []string
}

// newClientPlan reads the recommendation for one target. A method that is not idempotent and
// carries no Idempotency-Key gets one attempt whatever the recommendation counts: a
// timed-out attempt may have run, and a retry could run it twice (docs/design.md §5).
func newClientPlan(t Target, library string, in Input) clientPlan {
	r := in.Retry()
	p := clientPlan{
		Target: t, Library: library, Method: in.MethodOrGet(), URL: in.URL,
		ConnectMs: wholeMs(in.Rec.ConnectTimeoutMs), TimeoutMs: wholeMs(in.Rec.TimeoutMs),
		Attempts: r.MaxAttempts, BudgetMs: int64(in.Budget().Milliseconds()),
		BaseMs: r.Base.Milliseconds(), CapMs: r.Cap.Milliseconds(),
		Statuses: RetriedStatuses, RetryUnknown: in.RetryUnknown(), SendsKey: in.SendsKey(),
	}
	// The read timeout as every target reads it (Input.Read): for a stream, the larger of its
	// first-event and idle timeouts, which one per-read knob bounds together.
	if r := in.Read(); r > 0 {
		p.ReadMs = wholeMs(float64(r) / 1e6)
	}
	if !p.RetryUnknown {
		p.Attempts = 1
	}
	if in.Rec.Caller.Kind == profile.CallerJob {
		p.Job, p.Attempts, p.BudgetMs = in.Rec.Job, 1, 0
	}
	p.Header = codeHeader(p, in)
	return p
}

// wholeMs rounds a figure in milliseconds up to a whole one (a timeout is never shortened
// by the rounding), 0 for none.
func wholeMs(ms float64) int64 {
	if !(ms > 0) {
		return 0
	}
	return int64(math.Ceil(ms - 1e-9))
}

// ms writes a whole-millisecond figure as prose ("800 ms", "2 s").
func (p clientPlan) msWords(v int64) string { return units.Millis(float64(v)) }

// codeHeader is the comment block each program starts with: what wrote it, the figures, the
// attempts and why, what is retried, the idempotency key, and the exit code.
func codeHeader(p clientPlan, in Input) []string {
	lines := []string{
		fmt.Sprintf("%s: its recommendation for %s %s, in %s's own knobs.", in.GeneratedBy(p.Target), p.Method, p.URL, p.Library),
		"Per attempt: " + p.timeoutsLine() + ".",
	}
	lines = append(lines, p.attemptsLines(in)...)
	if p.SendsKey {
		lines = append(lines, "Idempotency-Key: one key per logical call, made once and sent unchanged on every attempt, so the server can tell a retry from a new request.")
	}
	if p.Target == Laravel && p.Job != nil {
		unknown := "a connect failure or a timeout throws too"
		if !p.RetryUnknown {
			unknown = "a connect failure or a timeout fails the job, for a person to check"
		}
		return append(lines, "Outcome: a 2xx returns; a 429 with a Retry-After is released for that long; a 502, 503 or 504 throws, and the queue retries after backoff(); "+
			unknown+"; any other status fails the job.")
	}
	return append(lines, "Exit: prints the status and exits 0 on a 2xx; exits 1 on a timeout, another status or giving up, saying why on stderr.")
}

func (p clientPlan) timeoutsLine() string {
	var parts []string
	if p.ConnectMs > 0 {
		parts = append(parts, "connect timeout "+p.msWords(p.ConnectMs))
	} else {
		parts = append(parts, "no connect timeout (none recommended: one that survives a lost SYN would not be below the total, which bounds the connect)")
	}
	if p.ReadMs > 0 {
		parts = append(parts, "read timeout "+p.msWords(p.ReadMs)+" (each silence)")
	} else {
		parts = append(parts, "no read timeout (none recommended)")
	}
	return strings.Join(append(parts, "total timeout "+p.msWords(p.TimeoutMs)), ", ")
}

func (p clientPlan) attemptsLines(in Input) []string {
	switch {
	case p.Job != nil:
		return []string{fmt.Sprintf("1 attempt per run: a queue job; the queue retries it (%d tries, job timeout %s, retry_after %s): a retry inside the run as well would multiply the calls.",
			p.Job.Tries, units.Millis(p.Job.TimeoutMs), units.Millis(p.Job.RetryAfterMs))}
	case in.Rec.Caller.Kind == profile.CallerJob:
		return []string{"1 attempt per run: a queue job; the queue retries it (the recommendation has no job design)."}
	case !p.RetryUnknown:
		return []string{fmt.Sprintf("1 attempt: %s is not idempotent and carries no Idempotency-Key — a timed-out %s may have run: retrying could do it twice.", p.Method, p.Method)}
	case p.Attempts == 1:
		return []string{fmt.Sprintf("1 attempt: the caller's budget of %s holds one; a deadline of %s around the call.", p.msWords(p.BudgetMs), p.msWords(p.BudgetMs))}
	}
	r := in.Retry()
	why := p.Method + " is idempotent"
	if p.SendsKey {
		why = "the Idempotency-Key makes a retry safe"
	}
	return []string{
		fmt.Sprintf("%d attempts (the first included), backoff %s between them, all within the caller's budget of %s: no attempt or wait runs past it.",
			p.Attempts, r.DescribeBackoff(), p.msWords(p.BudgetMs)),
		fmt.Sprintf("Retried: connect failures; %s; 429 only with a Retry-After; a Retry-After is honoured when it fits what is left of the budget, else the program gives up; timeouts and resets too (%s).",
			joinInts(p.Statuses, ", "), why),
	}
}

func joinInts(v []int, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}

// render runs a target's template over its data (the plan, or more).
func render(tmpl *template.Template, data any) (string, error) {
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// slashComment writes lines as `//` comments, wrapped at 100 columns, continuation lines
// indented. A URL or a method cannot end the comment: white space is folded, control
// characters and byte order marks become spaces, and a backslash-u and a ?> are spaced out
// (javac reads \u000a as a line break even in a comment; PHP leaves PHP mode at ?>).
func slashComment(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		l = strings.ReplaceAll(strings.Map(func(r rune) rune {
			if unicode.IsControl(r) || r == '\uFEFF' {
				return ' '
			}
			return r
		}, strings.ToValidUTF8(l, "\uFFFD")), `\u`, `\ u`)
		l = strings.ReplaceAll(l, "?>", "? >") // PHP leaves PHP mode at ?> even in a // comment
		first := true
		for _, w := range wrapWords(l, 96) {
			if first {
				b.WriteString("// " + w + "\n")
				first = false
				continue
			}
			b.WriteString("//   " + w + "\n")
		}
	}
	return b.String()
}

// codeFuncs are the helpers every template of this family uses.
var codeFuncs = template.FuncMap{
	"comment": slashComment,
	"ints":    func(v []int) string { return joinInts(v, ", ") },
	"seconds": msAsSeconds,
	"str":     cString,
	"phpstr":  phpString,
}

// cString writes s as a double-quoted literal JavaScript and Java both read: backslash,
// quote and control characters escaped, \u escapes for the rest of what is not printable ASCII.
func cString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString("\\" + string(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`) // Java reads a \u000a or \u000d as a line break even in a literal
		case r < 0x20 || r > 0x7e:
			for _, u := range utf16Units(r) {
				fmt.Fprintf(&b, "\\u%04x", u)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func utf16Units(r rune) []rune {
	if r < 0x10000 {
		return []rune{r}
	}
	r -= 0x10000
	return []rune{0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff}
}

// phpString writes s as a single-quoted PHP literal: only the quote and the backslash are
// escaped there, and nothing is interpolated.
func phpString(s string) string {
	return "'" + strings.NewReplacer("\\", "\\\\", "'", "\\'").Replace(s) + "'"
}

// loopSettings are the settings of the retry loop a program writes itself (attempts, the
// budget's deadline, the backoff and the Retry-After cap), each knob named as the program
// names it.
func loopSettings(p clientPlan, attempts, budget, backoff, retryAfter string) []Setting {
	out := []Setting{{Knob: attempts, Value: strconv.Itoa(p.Attempts), Bounds: "the calls one logical call makes, the first included"}}
	if p.BudgetMs > 0 {
		out = append(out, Setting{Knob: budget, Value: p.msWords(p.BudgetMs), Bounds: "the whole logical call, every attempt and wait: no attempt or wait runs past it"})
	}
	if p.Attempts > 1 {
		out = append(out,
			Setting{Knob: backoff, Value: fmt.Sprintf("base %s ×2, cap %s, full jitter", p.msWords(p.BaseMs), p.msWords(p.CapMs)), Bounds: "the wait before each retry: uniform in [0, min(cap, base·2^(n-1))]"},
			Setting{Knob: retryAfter, Value: "what is left of the budget", Bounds: "the wait a 429 or 503 asks for: honoured when it fits, else the program gives up"})
	}
	return out
}

// jobMissing is what a one-run program of a job caller lacks: the queue's own retries.
func jobMissing(p clientPlan) []string {
	if p.Job == nil {
		return nil
	}
	return []string{fmt.Sprintf("a queue job's retries (%d tries, backoff with %s jitter, job timeout %s, retry_after %s) are the queue's: this program makes one run's call (the laravel target writes the job)",
		p.Job.Tries, p.Job.Jitter, units.Millis(p.Job.TimeoutMs), units.Millis(p.Job.RetryAfterMs))}
}

// msAsSeconds writes whole milliseconds as a number of seconds ("0.8", "2"), as PHP's and
// Laravel's options take them.
func msAsSeconds(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) }

// codeTemplate parses a target's template with the family's helpers.
func codeTemplate(name, body string) *template.Template {
	return template.Must(template.New(name).Funcs(codeFuncs).Parse(body))
}

// perAttempt writes the per-attempt total as the programs apply it: lowered to what is left
// of the budget when there is one.
func (p clientPlan) perAttempt(total string) string {
	if p.BudgetMs > 0 {
		return total + ", less when the budget has less left"
	}
	return total
}
