package emit

import (
	"bytes"
	"fmt"
	"go/format"
	"strconv"
	"strings"
	"text/template"
	"time"
)

// goWriter writes the recommendation for Go's net/http: http.Client.Timeout (a real total,
// body included), net.Dialer.Timeout (the connect), Transport.ResponseHeaderTimeout (the wait
// for the head only), the budget as a context deadline around the loop, standard library only.
var goWriter = writer{target: Go, kind: KindCode, language: "go", write: writeGo}

// Go's knobs, measured on loopback with Go 1.26 (emit's real-client test): Client.Timeout
// ended a body dripping a byte every 250 ms at its 800 ms, and ResponseHeaderTimeout a hang at
// its 400 ms; nothing in net/http bounds a pause between two reads of the body but the total.
const (
	goConnectBounds = "the TCP connect (net.Dialer.Timeout)"
	goHeadBounds    = "the wait for the response head once the request is written (http.Transport.ResponseHeaderTimeout): " +
		"the first silence only, never a pause in the body"
	goTotalBounds = "one attempt as a whole: connect, request, head and body (http.Client.Timeout)"
)

func writeGo(in Input) (Emission, error) {
	p := newCodePlan(Go, in)
	t, err := template.New("go").Funcs(template.FuncMap{
		"dur":      goDuration,
		"comment":  func(paras ...string) string { return wrapComment("// ", 96, paras...) },
		"paras":    func(paras []string) string { return wrapComment("// ", 96, paras...) },
		"quote":    strconv.Quote,
		"statuses": goStatuses,
	}).Parse(goProgram)
	if err != nil {
		return Emission{}, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, goData{codePlan: p, Header: p.header()}); err != nil {
		return Emission{}, err
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return Emission{}, fmt.Errorf("the Go program does not parse: %w", err)
	}
	return Emission{Text: string(src), Settings: goSettings(p), Missing: goMissing(p)}, nil
}

// goData is what goProgram reads: the plan, its header and the knobs' words.
type goData struct {
	codePlan
	Header []string
}

func (goData) ConnectBounds() string { return goConnectBounds }
func (goData) HeadBounds() string    { return goHeadBounds }
func (goData) TotalBounds() string   { return goTotalBounds }

// goProgram is the program, gofmt'ed by format.Source after it is filled in.
const goProgram = `{{paras .Header}}//
// Build with Go 1.22 or later (math/rand/v2), standard library only: go run main.go
package main

import (
{{- if .HasBody}}
	"bytes"
{{- end}}
	"context"
{{- if .SendsKey}}
	crand "crypto/rand"
{{- end}}
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	url    = {{quote .URL}}
	method = {{quote .Method}}
{{- if .Connect}}
{{comment (printf "connectTimeout bounds %s." .ConnectBounds)}}	connectTimeout = {{dur .Connect}}
{{- else}}
{{comment (printf "No connect timeout: %s." .NoConnectWhy)}}
{{- end}}
{{- if .Read}}
{{comment (printf "headTimeout bounds %s." .HeadBounds)}}	headTimeout = {{dur .Read}}
{{- else}}
{{comment (printf "No read timeout: %s." .NoReadWhy)}}
{{- end}}
{{comment (printf "attemptTimeout bounds %s." .TotalBounds)}}	attemptTimeout = {{dur .Total}}
{{comment (printf "attempts bounds %s." .AttemptsBounds)}}	attempts = {{.Attempts}}
{{- if .Budget}}
{{comment (printf "budget bounds %s." .BudgetBounds)}}	budget = {{dur .Budget}}
{{- end}}
{{comment (printf "backoffBase bounds %s." .BaseBounds)}}	backoffBase = {{dur .Base}}
{{comment (printf "backoffCap bounds %s." .CapBounds)}}	backoffCap = {{dur .Cap}}
{{comment (printf "retryUnknown says %s." .UnknownBounds)}}	retryUnknown = {{.RetryUnknown}}
)

{{comment (printf "retriedStatuses are %s." .RetriedBounds)}}var retriedStatuses = {{statuses .Retried}}
{{if .HasBody}}
// body is the request body, sent again unchanged on every attempt: put the call's own here.
var body = []byte("")
{{end}}
func main() {
	status, err := call()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gave up:", err)
		os.Exit(1)
	}
	fmt.Println(status)
}

// call is the logical call: at most attempts attempts{{if .Budget}} within budget{{end}}; the 2xx status, or why it gave up.
func call() (int, error) {
{{- if .Budget}}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
{{- else}}
	ctx := context.Background() // a job: its queue's job timeout bounds the run
{{- end}}
	client := &http.Client{
		Timeout: attemptTimeout,
		Transport: &http.Transport{
			Proxy: http.ProxyFromEnvironment,
{{- if .Connect}}
			DialContext: (&net.Dialer{Timeout: connectTimeout}).DialContext,
{{- end}}
{{- if .Read}}
			ResponseHeaderTimeout: headTimeout,
{{- end}}
		},
	}
{{- if .SendsKey}}
	key := idempotencyKey()
{{- else}}
	key := ""
{{- end}}
	for n := 1; ; n++ {
		status, header, err := attempt(ctx, client, key)
		var why string
		var wait time.Duration
		switch {
		case err != nil && ctx.Err() != nil:
			return 0, fmt.Errorf("the budget is spent: %w", err)
		case err != nil:
			if !retryable(err) {
				return 0, err
			}
			why, wait = err.Error(), backoff(n)
		case status >= 200 && status < 300:
			return status, nil
		default:
			why, wait = "HTTP "+strconv.Itoa(status), backoff(n)
			pushback, ok := retryAfter(header.Get("Retry-After"))
			if !retriedStatuses[status] && !(status == http.StatusTooManyRequests && ok) {
				return 0, errors.New(why)
			}
			if ok {
				wait = max(wait, pushback)
			}
		}
		if n >= attempts {
			return 0, fmt.Errorf("%s (attempt %d of %d)", why, n, attempts)
		}
		if end, ok := ctx.Deadline(); ok && time.Until(end) <= wait {
			return 0, fmt.Errorf("%s; a retry in %v would not fit the budget", why, wait.Round(time.Millisecond))
		}
		fmt.Fprintf(os.Stderr, "attempt %d: %s; retrying in %v\n", n, why, wait.Round(time.Millisecond))
		time.Sleep(wait)
	}
}

// attempt makes one attempt and reads the whole body within it.
func attempt(ctx context.Context, client *http.Client, key string) (int, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, {{if .HasBody}}bytes.NewReader(body){{else}}nil{{end}})
	if err != nil {
		return 0, nil, err
	}
	if key != "" {
		// Idempotency-Key: one per logical call, sent unchanged on every attempt, so the
		// server runs the call once however many attempts reach it.
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, resp.Header, nil
}

// retryable says whether a failed attempt may be retried: a failed connect always (nothing
// was sent); a timeout or a reset (the request may have run) only when retryUnknown.
func retryable(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var ne net.Error
	timeout := errors.As(err, &ne) && ne.Timeout()
	reset := errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	return (timeout || reset) && retryUnknown
}

// backoff is the wait before retry n: U[0, min(backoffCap, backoffBase·2^(n-1))], full jitter.
func backoff(n int) time.Duration {
	d := backoffCap
	if n < 32 {
		d = min(backoffCap, backoffBase<<(n-1))
	}
	return rand.N(d + 1)
}

// retryAfter reads Retry-After: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
func retryAfter(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}
{{- if .SendsKey}}

// idempotencyKey is a random key for one logical call (128 bits, hex).
func idempotencyKey() string {
	b := make([]byte, 16)
	if _, err := crand.Read(b); err != nil {
		panic(err)
	}
	return fmt.Sprintf("%x", b)
}
{{- end}}
`

// goDuration is a duration as a Go constant expression ("300 * time.Millisecond").
func goDuration(d time.Duration) string {
	switch {
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + " * time.Second"
	case d%time.Millisecond == 0:
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + " * time.Millisecond"
	}
	return strconv.FormatInt(int64(d/time.Microsecond), 10) + " * time.Microsecond"
}

// goStatuses is the retried statuses as the program writes them.
func goStatuses(codes []int) string {
	s := make([]string, len(codes))
	for i, c := range codes {
		s[i] = strconv.Itoa(c) + ": true"
	}
	return "map[int]bool{" + strings.Join(s, ", ") + "}"
}

func goSettings(p codePlan) []Setting {
	s := []Setting{}
	if p.Connect > 0 {
		s = append(s, Setting{Knob: "net.Dialer.Timeout", Value: goDuration(p.Connect), Bounds: goConnectBounds})
	}
	if p.Read > 0 {
		s = append(s, Setting{Knob: "http.Transport.ResponseHeaderTimeout", Value: goDuration(p.Read), Bounds: goHeadBounds})
	}
	s = append(s, Setting{Knob: "http.Client.Timeout", Value: goDuration(p.Total), Bounds: goTotalBounds},
		Setting{Knob: "attempts", Value: strconv.Itoa(p.Attempts), Bounds: p.AttemptsBounds()})
	if p.Budget > 0 {
		s = append(s, Setting{Knob: "context.WithTimeout", Value: goDuration(p.Budget), Bounds: p.BudgetBounds()})
	}
	s = append(s,
		Setting{Knob: "backoffBase", Value: goDuration(p.Base), Bounds: p.BaseBounds()},
		Setting{Knob: "backoffCap", Value: goDuration(p.Cap), Bounds: p.CapBounds()},
		Setting{Knob: "retriedStatuses", Value: goStatuses(p.Retried), Bounds: p.RetriedBounds()},
		Setting{Knob: "retryUnknown", Value: strconv.FormatBool(p.RetryUnknown), Bounds: p.UnknownBounds()},
	)
	if p.SendsKey {
		s = append(s, Setting{Knob: "Idempotency-Key", Value: "idempotencyKey()", Bounds: p.KeyBounds()})
	}
	return s
}

func goMissing(p codePlan) []string {
	m := []string{}
	if p.Read > 0 {
		m = append(m, fmt.Sprintf("a read timeout between two reads of the body: net/http has none (ResponseHeaderTimeout bounds only "+
			"the wait for the head); the %s Client.Timeout bounds the body's pauses with the rest of the attempt", ms(p.Total)))
	}
	if p.Attempts > 1 {
		m = append(m, "a retry policy: net/http has none; the program retries in its own loop"+budgetClause(p)+
			", the budget a context deadline that also ends an attempt running past it")
	}
	if p.Job != nil {
		m = append(m, p.queueMissing("net/http"))
	}
	return m
}
