package check

import (
	"fmt"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/source"
)

// callAt is where a call's findings point: the call expression.
func callAt(c *Call) policy.Pos { return policy.Pos{File: c.File, Line: c.Line, Col: c.Col} }

// callMissingTimeout is PT001 on a call site: nothing bounds the wait — a peer that goes
// silent holds the call forever (no total, no context deadline, no read bound on every
// silence; the library's defaults included). This is the seeds' incident (requests with no
// timeout, every Gunicorn worker waiting) and what their fix sets: connect 3 s and read 10 s,
// through a wrapper that refuses timeout=None. A read bound on every silence is that fix: the
// call's row keeps total "none", and a body that drips a byte within each read bound is named
// in its notes, not here — requests, httpx and urllib3 have no total to set, so a gate firing
// on the seeds' own fix would be one users turn off. A read bound that ends at the head (Go's
// ResponseHeaderTimeout) leaves the body's silences unbounded: PT001. An unresolved bound is not
// judged (never guessed): the call's row says so. The fix is the call's library's
// (source.Library.Fix), the words the language's (callWords).
func callMissingTimeout(p *pass, c *Call) error {
	if bounded, known := c.SilenceBounded(); bounded || !known {
		return nil
	}
	fix := ""
	if lib := source.LibraryOf(c); lib != nil {
		fix = lib.Fix
	}
	w := wordsOf(c.Language)
	if c.Timeouts.ReadMS != nil {
		read := units.Duration(time.Duration(*c.Timeouts.ReadMS) * time.Millisecond)
		p.reportFix(callAt(c), fix, "no total timeout: "+w.readOnly+", so a body that stops sending holds %s forever", read, w.waiter)
		return nil
	}
	p.reportFix(callAt(c), fix, "no timeout: %s, so one hung call holds %s (and whoever waits on it) forever", w.unbounded(c), w.waiter)
	return nil
}

// callWords are a language's words in PT001's message: who a hung call holds, what a read
// bound alone bounds, and how a call comes to have no bound.
type callWords struct {
	waiter    string
	readOnly  string // %s: the read bound
	unbounded func(c *Call) string
}

// langWords are callWords per source.Language name; others take defaultWords.
var langWords = map[string]callWords{
	"go": {
		waiter:    "the calling goroutine",
		readOnly:  "the %s read bound (ResponseHeaderTimeout) ends at the response head",
		unbounded: func(c *Call) string { return clientWords(c) + " has no Timeout and the request no deadline" },
	},
	"python": {
		waiter:    "the calling worker (its thread or process)",
		readOnly:  "the %s read timeout bounds each wait for the next bytes, not the response",
		unbounded: libraryUnbounded,
	},
	"php": {
		waiter:    "the calling PHP worker (a php-fpm child or a queue worker)",
		readOnly:  "the %s read timeout bounds each wait for the next bytes, not the response",
		unbounded: libraryUnbounded,
	},
	"javascript": jsWords,
	"typescript": jsWords,
}

// jsWords: Node's event loop goes on, but the request's socket and everything awaiting it wait.
var jsWords = callWords{
	waiter:    "the awaiting request (its socket and everything that awaits it)",
	readOnly:  "the %s read bound bounds each silence of the socket, not the response",
	unbounded: libraryUnbounded,
}

var defaultWords = callWords{
	waiter:    "the calling worker",
	readOnly:  "the %s read bound bounds each silence, not the response",
	unbounded: libraryUnbounded,
}

func wordsOf(lang string) callWords {
	if w, ok := langWords[lang]; ok {
		return w
	}
	return defaultWords
}

// libraryUnbounded says how a call through a library other than Go's came to have no bound.
func libraryUnbounded(c *Call) string {
	return fmt.Sprintf("the %s call sets no timeout and %s", c.Library, clientOrDefault(c))
}

// clientOrDefault says what else could have bounded the call and does not.
func clientOrDefault(c *Call) string {
	if c.Origin.Connect == source.OriginDefault || c.Origin.Read == source.OriginDefault {
		return "the library's default bounds no total"
	}
	return "neither does its client or the library's default"
}

// clientWords says which client a Go call uses, for PT001's message.
func clientWords(c *Call) string {
	if c.Retry != nil && c.Retry.Layer == "go-retryablehttp" {
		return "the go-retryablehttp client's HTTPClient"
	}
	if c.Retry != nil {
		return "the http.Client around " + c.Retry.Layer + "'s retries"
	}
	if c.Origin.Total == source.OriginNone && c.Origin.Connect == source.OriginDefault {
		return "the client (http.DefaultClient, or an http.Client left at its defaults)"
	}
	return "the client"
}
