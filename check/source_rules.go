package check

import (
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/source"
)

// callAt is where a call's findings point: the call expression.
func callAt(c *Call) policy.Pos { return policy.Pos{File: c.File, Line: c.Line, Col: c.Col} }

// callMissingTimeout is PT001 on a call site: nothing bounds the whole call (no client
// timeout, no context deadline, the library's default none). As for a dependency, a read
// bound alone is no bound: Go's ResponseHeaderTimeout ends at the head, and a body that drips
// never ends. An unresolved total is not judged (never guessed): the call's row says so.
func callMissingTimeout(p *pass, c *Call) error {
	if c.Origin.Total != source.OriginNone {
		return nil
	}
	fix := "give the client a Timeout (http.Client{Timeout: …}) a little above the dependency's p99.9 (patience probe URL measures it), or send the request with a context.WithTimeout"
	if c.Retry != nil {
		fix = "set the client's HTTPClient.Timeout (it bounds each attempt) a little above the dependency's p99.9 (patience probe URL measures it), or send the request with a context.WithTimeout"
	}
	if c.Timeouts.ReadMS != nil {
		read := units.Duration(time.Duration(*c.Timeouts.ReadMS) * time.Millisecond)
		p.reportFix(callAt(c), fix, "no total timeout: the %s read bound (ResponseHeaderTimeout) ends at the response head, so a body that drips a byte at a time never ends and holds the calling goroutine forever", read)
		return nil
	}
	p.reportFix(callAt(c), fix, "no timeout: %s has no Timeout and the request no deadline, so one hung call holds the calling goroutine (and whoever waits on it) forever", clientWords(c))
	return nil
}

// clientWords says which client a call uses, for PT001's message.
func clientWords(c *Call) string {
	if c.Retry != nil {
		return "the go-retryablehttp client's HTTPClient"
	}
	if c.Origin.Total == source.OriginNone && c.Origin.Connect == source.OriginDefault {
		return "the client (http.DefaultClient, or an http.Client left at its defaults)"
	}
	return "the client"
}

// callRetriesNonIdempotent is PT005 on a call site: a POST/PATCH (any non-idempotent method)
// the code's retry layer retries on an outcome-unknown failure, with no Idempotency-Key set
// on the request. A method or a key the reader cannot see is not judged.
func callRetriesNonIdempotent(p *pass, c *Call) error {
	if c.Retry == nil || c.Retry.MaxAttempts < 2 || c.Method == "" || c.IdempotencyKey == nil || *c.IdempotencyKey {
		return nil
	}
	if (policy.Request{Method: c.Method}).Idempotent() {
		return nil
	}
	unknown := outcomeUnknown(c.Retry.On)
	if len(unknown) == 0 {
		return nil
	}
	p.reportFix(callAt(c), `set an Idempotency-Key header on the request (req.Header.Set("Idempotency-Key", key), the same key on every retry), or give the client a CheckRetry that does not retry this request on an unknown outcome`,
		"%s retries a %s up to %s on %s without an Idempotency-Key (it does not look at the method): a %s after the provider committed executes it twice",
		c.Retry.Layer, c.Method, attemptsText(c.Retry.MaxAttempts), strings.Join(unknown, ", "), unknown[0])
	return nil
}
