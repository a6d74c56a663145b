package emit

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"
)

// pyLib is one Python client library as a value: what the program imports, how it opens a
// client, its attempt function (a template over the plan) and what its knobs bound.
type pyLib struct {
	name string
	// stdlib and imports are the import lines beyond the common ones (sorted by the writer).
	stdlib, imports []string
	// async: the program runs on asyncio (aiohttp); open is the client the call holds for all
	// its attempts, as a with statement takes it.
	async bool
	open  string
	// attempt is the template of `attempt(client, headers, seconds)`: one attempt, over
	// within seconds, returning (status, headers) or raising Failure.
	attempt string
	// connect, read and total say what each timeout knob bounds in this library.
	connect, read, total string
	// settings lists the library's own knobs (its names and values); missing what it lacks.
	settings func(pyLib, codePlan) []Setting
	missing  func(codePlan) []string
}

// pyStdlib are the standard modules every Python program imports.
var pyStdlib = []string{"email.utils", "random", "sys", "time"}

// writePython writes the program for lib: the header, the knobs, the shared helpers, lib's
// attempt and the logical call's loop (pyCall).
func writePython(lib pyLib, in Input) (Emission, error) {
	p := newCodePlan(Target(lib.name), in)
	var b strings.Builder
	b.WriteString("#!/usr/bin/env python3\n")
	b.WriteString(wrapComment("# ", 96, p.header()...))
	b.WriteString("\n" + pyImports(lib, p) + "\n")
	b.WriteString(pyKnobs(lib, p))
	if p.Total > 0 {
		b.WriteString(pyHelpers)
	} else {
		b.WriteString(strings.Replace(pyHelpers, pyWithin, pyWithinUnbounded, 1))
	}
	for _, t := range []string{lib.attempt, pyCall} {
		s, err := pyTemplate(t, lib, p)
		if err != nil {
			return Emission{}, err
		}
		b.WriteString("\n\n" + s)
	}
	b.WriteString("\n\n" + pyMain(lib))
	return Emission{Text: b.String(), Settings: append(lib.settings(lib, p), pyLoopSettings(p)...), Missing: lib.missing(p)}, nil
}

// pyImports is the import block: the standard library, a blank line, the client library.
func pyImports(lib pyLib, p codePlan) string {
	std := append(append([]string{}, pyStdlib...), lib.stdlib...)
	if lib.async {
		std = append(std, "asyncio")
	}
	if p.SendsKey {
		std = append(std, "uuid")
	}
	slices.Sort(std)
	var b strings.Builder
	for _, m := range std {
		b.WriteString("import " + m + "\n")
	}
	b.WriteString("\n")
	for _, m := range lib.imports {
		b.WriteString("import " + m + "\n")
	}
	return b.String()
}

// pyKnobs are the module constants: the call, then each knob with one comment saying what
// it bounds.
func pyKnobs(lib pyLib, p codePlan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "URL = %s\nMETHOD = %s\n", strconv.Quote(p.URL), strconv.Quote(p.Method))
	knob := func(name, value, verb, bounds string) {
		b.WriteString(wrapComment("# ", 96, name+" "+verb+" "+bounds+"."))
		b.WriteString(name + " = " + value + "\n")
	}
	if p.HasBody() {
		b.WriteString("# The request body, sent again unchanged on every attempt: put the call's own here.\n")
		b.WriteString("BODY = b\"\"\n")
	} else {
		b.WriteString("BODY = None\n")
	}
	if p.Connect > 0 {
		knob("CONNECT_TIMEOUT", pySeconds(p.Connect), "bounds", lib.connect)
	} else {
		b.WriteString(wrapComment("# ", 96, "No CONNECT_TIMEOUT: "+p.NoConnectWhy()+".") + "CONNECT_TIMEOUT = None\n")
	}
	if p.Read > 0 {
		knob("READ_TIMEOUT", pySeconds(p.Read), "bounds", lib.read)
	} else {
		b.WriteString(wrapComment("# ", 96, "No READ_TIMEOUT: "+p.NoReadWhy()+".") + "READ_TIMEOUT = None\n")
	}
	if p.Total > 0 {
		knob("TOTAL_TIMEOUT", pySeconds(p.Total), "bounds", lib.total)
	} else {
		b.WriteString(wrapComment("# ", 96, "No TOTAL_TIMEOUT: the stream's length is unbounded (streams were still streaming when the probe stopped waiting), so no total bounds an attempt; READ_TIMEOUT bounds the wait for its first event and each gap.") + "TOTAL_TIMEOUT = None\n")
	}
	knob("ATTEMPTS", strconv.Itoa(p.Attempts), "bounds", p.AttemptsBounds())
	if p.Budget > 0 {
		knob("BUDGET", pySeconds(p.Budget), "bounds", p.BudgetBounds())
	} else {
		b.WriteString(wrapComment("# ", 96, "No BUDGET: a job has no caller waiting; its queue's job timeout bounds the run.") + "BUDGET = None\n")
	}
	knob("BACKOFF_BASE", pySeconds(p.Base), "bounds", p.BaseBounds())
	knob("BACKOFF_CAP", pySeconds(p.Cap), "bounds", p.CapBounds())
	knob("RETRIED_STATUSES", pyStatuses(p.Retried), "are", p.RetriedBounds())
	knob("RETRY_UNKNOWN", pyBool(p.RetryUnknown), "says", p.UnknownBounds())
	return b.String()
}

// pyLoopSettings are the loop's knobs as Settings, named as the program names them.
func pyLoopSettings(p codePlan) []Setting {
	s := []Setting{{Knob: "ATTEMPTS", Value: strconv.Itoa(p.Attempts), Bounds: p.AttemptsBounds()}}
	if p.Budget > 0 {
		s = append(s, Setting{Knob: "BUDGET", Value: pySeconds(p.Budget), Bounds: p.BudgetBounds()})
	}
	s = append(s,
		Setting{Knob: "BACKOFF_BASE", Value: pySeconds(p.Base), Bounds: p.BaseBounds()},
		Setting{Knob: "BACKOFF_CAP", Value: pySeconds(p.Cap), Bounds: p.CapBounds()},
		Setting{Knob: "RETRIED_STATUSES", Value: pyStatuses(p.Retried), Bounds: p.RetriedBounds()},
		Setting{Knob: "RETRY_UNKNOWN", Value: pyBool(p.RetryUnknown), Bounds: p.UnknownBounds()},
	)
	if p.SendsKey {
		s = append(s, Setting{Knob: "Idempotency-Key", Value: "str(uuid.uuid4())", Bounds: p.KeyBounds()})
	}
	return s
}

// pyHelpers are the functions every Python program shares: the failures, the knob lowered
// to what is left, the full-jitter backoff and Retry-After.
const pyHelpers = `

class Failure(Exception):
    """An attempt that ended without a response; retry says whether another may follow."""

    def __init__(self, why, retry):
        super().__init__(why)
        self.retry = retry


class GiveUp(Exception):
    """The call failed for good; the message says why."""


` + pyWithin + `


def backoff(retry):
    """The wait before retry n: U[0, min(BACKOFF_CAP, BACKOFF_BASE * 2^(n-1))], full jitter."""
    return random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (retry - 1)))


def retry_after(value):
    """Retry-After in seconds, delay-seconds or an HTTP-date (RFC 9110 §10.2.3); None if unread."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
`

// pyWithin lowers a knob to what the attempt has left; pyWithinUnbounded also takes an attempt
// with no total (seconds None: a stream of unbounded length).
const (
	pyWithin = `def within(knob, seconds):
    """The knob lowered to the seconds the attempt has left (None: those seconds)."""
    return seconds if knob is None else min(knob, seconds)`
	pyWithinUnbounded = `def within(knob, seconds):
    """The knob lowered to the seconds the attempt has left (None on either side: the other)."""
    if knob is None or seconds is None:
        return seconds if knob is None else knob
    return min(knob, seconds)`
)

// pyTotal is TOTAL_TIMEOUT's value as a setting: its seconds, or None when the stream is
// unbounded.
func pyTotal(p codePlan) string {
	if p.Total <= 0 {
		return "None (the stream's length is unbounded)"
	}
	return pySeconds(p.Total)
}

// pyCall is the logical call: the attempts, the backoff between them, Retry-After and the
// budget, written once for every Python library ({{await}} and {{sleep}} differ on asyncio).
const pyCall = `{{if .Async}}async {{end}}def call():
    """The logical call: at most ATTEMPTS attempts{{if .Budget}} within BUDGET{{end}}; the 2xx status, or GiveUp."""
{{- if .Budget}}
    deadline = time.monotonic() + BUDGET
{{- end}}
    headers = {}
{{- if .SendsKey}}
    # Idempotency-Key: one per logical call, sent unchanged on every attempt, so the server
    # runs the call once however many attempts reach it.
    headers["Idempotency-Key"] = str(uuid.uuid4())
{{- end}}
    {{if .Async}}async {{end}}with {{.Open}} as client:
        for n in range(1, ATTEMPTS + 1):
{{- if and .Budget .FirstEventBudget}}
            if deadline - time.monotonic() <= 0:
                raise GiveUp("the budget is spent")
            # A stream: the budget holds the waits for the first event (READ_TIMEOUT bounds
            # each), not the stream, whose length is the content's: the attempt keeps its own.
            seconds = TOTAL_TIMEOUT
{{- else if .Budget}}
            seconds = min(TOTAL_TIMEOUT, deadline - time.monotonic())
            if seconds <= 0:
                raise GiveUp("the budget is spent")
{{- else}}
            seconds = TOTAL_TIMEOUT
{{- end}}
            try:
                status, response_headers = {{if .Async}}await {{end}}attempt(client, headers, seconds)
            except Failure as failure:
                if not failure.retry:
                    raise GiveUp(str(failure)) from None
                why, wait = str(failure), backoff(n)
            else:
                if 200 <= status < 300:
                    return status
                why, wait = f"HTTP {status}", backoff(n)
                pushback = retry_after(response_headers.get("Retry-After"))
                if status not in RETRIED_STATUSES and not (status == 429 and pushback is not None):
                    raise GiveUp(why)
                if pushback is not None:
                    wait = max(wait, pushback)
            if n == ATTEMPTS:
                raise GiveUp(f"{why} (attempt {n} of {ATTEMPTS})")
{{- if .Budget}}
            if time.monotonic() + wait >= deadline:
                raise GiveUp(f"{why}; a retry in {wait:.3f} s would not fit the budget")
{{- end}}
            print(f"attempt {n}: {why}; retrying in {wait:.3f} s", file=sys.stderr)
            {{if .Async}}await asyncio.sleep(wait){{else}}time.sleep(wait){{end}}
`

// pyMain runs the call: the status on stdout and exit 0, or why on stderr and exit 1.
func pyMain(lib pyLib) string {
	run := "call()"
	if lib.async {
		run = "asyncio.run(call())"
	}
	return `def main():
    try:
        status = ` + run + `
    except GiveUp as e:
        print(f"gave up: {e}", file=sys.stderr)
        return 1
    print(status)
    return 0


if __name__ == "__main__":
    sys.exit(main())
`
}

// pyData is what the Python templates read: the plan and the library's own pieces.
type pyData struct {
	codePlan
	Async bool
	Open  string
}

func pyTemplate(text string, lib pyLib, p codePlan) (string, error) {
	t, err := template.New(lib.name).Parse(text)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, pyData{codePlan: p, Async: lib.async, Open: lib.open}); err != nil {
		return "", err
	}
	return b.String(), nil
}

// pySeconds is a duration as a Python float literal in seconds ("0.3", "2.0").
func pySeconds(d time.Duration) string {
	s := strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

func pyStatuses(codes []int) string {
	s := make([]string, len(codes))
	for i, c := range codes {
		s[i] = strconv.Itoa(c)
	}
	return "{" + strings.Join(s, ", ") + "}"
}

func pyBool(v bool) string {
	if v {
		return "True"
	}
	return "False"
}
