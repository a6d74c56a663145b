package source

import (
	"slices"
	"strings"
)

// Retry decorators on the function that makes a call, as data:
//   - tenacity (tenacity/__init__.py, stop.py, wait.py): @retry with no stop= never stops;
//     with no retry= it retries on any exception; wait_exponential waits
//     multiplier·exp_base^(n-1) clamped to [min, max]; wait_random_exponential is the same
//     with full jitter.
//   - backoff (backoff/_decorator.py): on_exception(wait_gen, exception, max_tries=,
//     max_time=, jitter=full_jitter); expo is base 2 from factor 1 s.

// pyAnyFailure are the classes an "any exception" retry retries: every transport failure;
// a status only where the function raises on it (raise_for_status), which the reader does
// not follow.
var pyAnyFailure = []string{"connect", "timeout", "reset"}

// pyExceptionClasses map an exception class name (its last part) to the failure classes it
// stands for.
var pyExceptionClasses = map[string][]string{
	"Exception": pyAnyFailure, "BaseException": pyAnyFailure, "OSError": pyAnyFailure, "IOError": pyAnyFailure,
	"RequestException": {"connect", "timeout", "reset", "4xx", "5xx"},
	"ConnectionError":  {"connect", "reset"}, "ConnectTimeout": {"connect"}, "ConnectError": {"connect"},
	"Timeout": {"timeout"}, "ReadTimeout": {"timeout"}, "TimeoutException": {"timeout", "connect"}, "TimeoutError": {"timeout"},
	"ServerTimeoutError": {"timeout"}, "ReadError": {"reset"}, "RemoteProtocolError": {"reset"},
	"HTTPError": {"4xx", "5xx"}, "HTTPStatusError": {"4xx", "5xx"}, "ClientResponseError": {"4xx", "5xx"},
	"TransportError": {"connect", "timeout", "reset"}, "NetworkError": {"connect", "reset"},
	"ClientError": {"connect", "timeout", "reset", "4xx", "5xx"}, "ClientConnectionError": {"connect", "reset"},
	"ClientConnectorError": {"connect"}, "ServerDisconnectedError": {"reset"},
}

// decorator is the retry layer a decorator line puts around its function, when it is one
// the reader knows (tenacity's retry, backoff's on_exception).
func (env *pyEnv) decorator(l pyLine) (Retry, bool) {
	toks := l.Toks[1:]
	callee, args := toks, pyArgs{kw: map[string][]pyTok{}}
	if len(toks) > 0 && toks[len(toks)-1].Text == ")" {
		open := matchingBack(toks, len(toks)-1)
		if open <= 0 {
			return Retry{}, false
		}
		callee, args = toks[:open], parseArgs(toks[open+1:len(toks)-1])
	}
	if !isDotted(callee) {
		return Retry{}, false
	}
	q := env.eval(callee, 0)
	at := Retry{File: env.file.path, Line: l.Toks[0].Line}
	switch q.str {
	case "tenacity.retry":
		return env.tenacity(at, args), true
	case "backoff.on_exception":
		return env.backoff(at, args), true
	}
	return Retry{}, false
}

// tenacity reads @retry(stop=…, wait=…, retry=…).
func (env *pyEnv) tenacity(r Retry, args pyArgs) Retry {
	r.Layer = "tenacity"
	r.On = pyAnyFailure
	if t, ok := args.kw["retry"]; ok {
		r.On = env.exceptionClasses(t, "retry_if_exception_type")
	}
	stop, ok := args.kw["stop"]
	if !ok {
		r.Unresolved = "tenacity's @retry with no stop retries forever"
	}
	for _, part := range splitTop(stripParens(stop), "|") {
		v := env.eval(part, 0)
		if v.kind != pvCall || len(v.call.args.pos) == 0 {
			continue
		}
		n := v.call.env.eval(v.call.args.pos[0], 0)
		switch {
		case strings.HasSuffix(v.call.callee, "stop_after_attempt") && n.kind == pvNum:
			r.MaxAttempts = int(n.num)
		case strings.HasSuffix(v.call.callee, "stop_after_delay") && n.kind == pvNum:
			r.DeadlineMS = msOf(n.num)
		}
	}
	if ok && r.MaxAttempts == 0 {
		r.Unresolved = "tenacity's stop= sets no attempt count the reader reads"
	}
	if t, ok := args.kw["wait"]; ok {
		r.Backoff = env.tenacityWait(env.eval(t, 0))
	}
	return r
}

// tenacityWait reads wait_exponential, wait_random_exponential and wait_fixed.
func (env *pyEnv) tenacityWait(v pyVal) *Backoff {
	if v.kind != pvCall {
		return nil
	}
	args, e := v.call.args, v.call.env
	num := func(name string, pos int, def float64) float64 {
		if t := args.arg(name, pos); t != nil {
			if n := e.eval(t, 0); n.kind == pvNum {
				return n.num
			}
		}
		return def
	}
	name := v.call.callee[strings.LastIndex(v.call.callee, ".")+1:]
	switch name {
	case "wait_fixed":
		return &Backoff{ScheduleMS: []int64{*msOf(num("wait", 0, 0))}, Jitter: "none"}
	case "wait_exponential", "wait_random_exponential":
		b := &Backoff{InitialMS: msOf(max(num("multiplier", 0, 1), num("min", 2, 0))), Multiplier: ptr(num("exp_base", 4, 2)), Jitter: "none"}
		if name == "wait_random_exponential" {
			b.Jitter = "full"
		}
		if _, ok := args.kw["max"]; ok {
			b.MaxMS = msOf(num("max", 3, 0))
		}
		return b
	}
	return nil
}

// exceptionClasses are the failure classes of retry_if_exception_type(X) (or backoff's
// exception argument): X a class or a tuple of them; nil when the code sets its own test.
func (env *pyEnv) exceptionClasses(toks []pyTok, wrapper string) []string {
	if wrapper != "" {
		v := env.eval(toks, 0)
		if v.kind != pvCall || !strings.HasSuffix(v.call.callee, wrapper) {
			return nil
		}
		if len(v.call.args.pos) == 0 {
			return pyAnyFailure
		}
		toks = v.call.args.pos[0]
	}
	toks = stripParens(toks)
	var out []string
	for _, part := range splitTop(toks, ",") {
		for _, c := range pyExceptionClasses[part[len(part)-1].Text] {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// backoff reads @backoff.on_exception(wait_gen, exception, max_tries=, max_time=, jitter=).
func (env *pyEnv) backoff(r Retry, args pyArgs) Retry {
	r.Layer = "backoff"
	if t := args.arg("exception", 1); t != nil {
		r.On = env.exceptionClasses(t, "")
	}
	if t, ok := args.kw["max_tries"]; ok {
		if n := env.eval(t, 0); n.kind == pvNum {
			r.MaxAttempts = int(n.num)
		}
	}
	if t, ok := args.kw["max_time"]; ok {
		if n := env.eval(t, 0); n.kind == pvNum {
			r.DeadlineMS = msOf(n.num)
		}
	}
	if r.MaxAttempts == 0 {
		r.Unresolved = "backoff.on_exception with no max_tries retries until max_time, or forever"
	}
	jitter := "full"
	if t, ok := args.kw["jitter"]; ok {
		jitter = ""
		if v := env.eval(t, 0); v.kind == pvNone {
			jitter = "none"
		}
	}
	if t := args.arg("wait_gen", 0); t != nil {
		switch env.eval(t, 0).str {
		case "backoff.expo":
			r.Backoff = &Backoff{InitialMS: ptr(int64(1000)), Multiplier: ptr(2.0), Jitter: jitter}
		case "backoff.constant":
			r.Backoff = &Backoff{ScheduleMS: []int64{1000}, Jitter: jitter}
		}
	}
	return r
}

// Celery's task retries, as data (celery/app/task.py Task): max_retries = 3, retry_backoff
// False (True: 1 s doubling), retry_backoff_max = 600, retry_jitter = True (full jitter);
// a task retries on its own only for the exceptions of autoretry_for.
var (
	celeryMaxRetries    = 3
	celeryBackoffMaxMS  = int64(600_000)
	pyRouteDecorators   = []string{"route", "get", "post", "put", "patch", "delete", "head", "options", "api_route", "websocket"}
	pyTaskDecoratorTail = []string{"task", "shared_task", "actor"}
)

// context is where the call's function runs when its decorators say: a queue job (a Celery
// task, a dramatiq actor) or a request handler (@app.route("/…"), @router.get("/…")).
func (s pySite) context() string {
	fn := s.env.fn
	if fn == nil {
		return ""
	}
	for _, d := range fn.decorators {
		name, args := decoratorName(d)
		switch {
		case slices.Contains(pyTaskDecoratorTail, name):
			return "job"
		case slices.Contains(pyRouteDecorators, name) && len(args.pos) > 0 && len(args.pos[0]) == 1 && args.pos[0][0].Kind == pyStr && strings.HasPrefix(args.pos[0][0].Text, "/"):
			return "request"
		}
	}
	return ""
}

// decoratorName is the last name of a decorator's callee and its arguments.
func decoratorName(l pyLine) (string, pyArgs) {
	toks := l.Toks[1:]
	args := pyArgs{kw: map[string][]pyTok{}}
	if len(toks) > 0 && toks[len(toks)-1].Text == ")" {
		if open := matchingBack(toks, len(toks)-1); open > 0 {
			args = parseArgs(toks[open+1 : len(toks)-1])
			toks = toks[:open]
		}
	}
	if len(toks) == 0 || toks[len(toks)-1].Kind != pyName {
		return "", args
	}
	return toks[len(toks)-1].Text, args
}

// celery reads a task decorator's autoretry_for=, max_retries=, retry_backoff=,
// retry_backoff_max= and retry_jitter=: the job is a layer of its own.
func (env *pyEnv) celery(l pyLine) (Retry, bool) {
	name, args := decoratorName(l)
	if name != "task" && name != "shared_task" {
		return Retry{}, false
	}
	auto, ok := args.kw["autoretry_for"]
	if !ok {
		return Retry{}, false
	}
	r := Retry{Layer: "celery", File: env.file.path, Line: l.Toks[0].Line, MaxAttempts: celeryMaxRetries + 1, On: env.exceptionClasses(auto, "")}
	if t, ok := args.kw["max_retries"]; ok {
		switch n := env.eval(t, 0); {
		case n.kind == pvNum:
			r.MaxAttempts = int(n.num) + 1
		case n.kind == pvNone:
			r.MaxAttempts, r.Unresolved = 0, "a Celery task with max_retries=None retries forever"
		default:
			r.MaxAttempts, r.Unresolved = 0, "max_retries: "+orWhy(n)
		}
	}
	if t, ok := args.kw["retry_backoff"]; ok {
		b := env.eval(t, 0)
		if b.kind == pvBool && b.num == 1 || b.kind == pvNum && b.num > 0 {
			first := 1.0
			if b.kind == pvNum {
				first = b.num
			}
			r.Backoff = &Backoff{InitialMS: msOf(first), Multiplier: ptr(2.0), MaxMS: ptr(celeryBackoffMaxMS), Jitter: "full"}
			if j, ok := args.kw["retry_jitter"]; ok && env.eval(j, 0).kind == pvBool && env.eval(j, 0).num == 0 {
				r.Backoff.Jitter = "none"
			}
		}
	}
	return r, true
}
