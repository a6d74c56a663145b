package source

import (
	"go/ast"
)

// fsBuilder applies one method of a failsafe-go retrypolicy.Builder (or RetryPolicy,
// Executor) to the policy it is called on; methods not listed leave it as it is (Build,
// OnRetry, AbortOnErrors …; an executor's WithContext is methodCall's).
type fsBuilder func(p *goPackage, v *value, args []ast.Expr, sc *goScope, depth int)

// fsBuilders are the builder methods that change attempts, classes or waits
// (failsafe-go retrypolicy/retry.go, config's methods).
var fsBuilders = map[string]fsBuilder{
	"WithMaxRetries": func(p *goPackage, v *value, a []ast.Expr, sc *goScope, d int) {
		p.fsAttempts(v, a, sc, d, "WithMaxRetries")
	},
	"WithMaxAttempts": func(p *goPackage, v *value, a []ast.Expr, sc *goScope, d int) {
		p.fsAttempts(v, a, sc, d, "WithMaxAttempts")
	},
	"HandleIf":          fsCodeClasses,
	"HandleErrors":      fsCodeClasses,
	"HandleErrorTypes":  fsCodeClasses,
	"HandleResult":      fsCodeClasses,
	"AbortIf":           fsCodeClasses,
	"WithDelay":         (*goPackage).fsDelay,
	"WithBackoff":       (*goPackage).fsBackoff,
	"WithBackoffFactor": (*goPackage).fsBackoff,
	"WithRandomDelay":   fsWaitNotRead,
	"WithDelayFunc":     fsDelayFunc,
	"WithJitter":        fsJitter,
	"WithJitterFactor":  (*goPackage).fsJitterFactor,
	"WithMaxDuration":   (*goPackage).fsMaxDuration,
}

// fsPassThrough are the methods that return the policy they are called on unchanged.
var fsPassThrough = map[string]bool{
	"Build": true, "ReturnLastFailure": true, "AbortOnErrors": true, "AbortOnErrorTypes": true, "AbortOnResult": true,
	"OnSuccess": true, "OnFailure": true, "OnAbort": true, "OnRetry": true, "OnRetryScheduled": true,
	"OnRetriesExceeded": true, "WithBudget": true, "OnDone": true, "Compose": true,
}

// builderCall resolves a builder method called on a failsafe-go policy; nil when fn is
// none or is not called on one.
func (p *goPackage) builderCall(fn *ast.SelectorExpr, args []ast.Expr, sc *goScope, own Origin, depth int) *value {
	apply, ok := fsBuilders[fn.Sel.Name]
	if !ok && !fsPassThrough[fn.Sel.Name] {
		return nil
	}
	v := p.value(fn.X, sc, own, depth+1)
	if v == nil || v.kind != kindPolicy {
		return nil
	}
	if ok && v.retry != nil {
		r := *v.retry
		v.retry = &r
		apply(p, v, args, sc, depth+1)
	}
	return v
}

// fsAttempts is WithMaxRetries(n) (plus 1) or WithMaxAttempts(n); -1 is no limit
// (retry.go, WithMaxAttempts and WithMaxRetries).
func (p *goPackage) fsAttempts(v *value, args []ast.Expr, sc *goScope, depth int, method string) {
	if len(args) != 1 {
		return
	}
	plus := 0
	if method == "WithMaxRetries" {
		plus = 1
	}
	n, ok := p.eval(args[0], sc, depth)
	switch {
	case ok && n == -1:
		v.retry.MaxAttempts, v.retry.Unresolved = 0, "without limit: "+method+"(-1)"
		v.notes = append(v.notes, "attempts: "+v.retry.Unresolved)
	case ok && n >= 0:
		v.retry.MaxAttempts, v.retry.Unresolved = int(n)+plus, ""
	default:
		v.retry.MaxAttempts, v.retry.Unresolved = 0, exprText(args[0])+" is computed at run time"
		v.notes = append(v.notes, "attempts: "+v.retry.Unresolved)
	}
}

// fsCodeClasses: a Handle… or AbortIf condition of the code's own decides what is retried.
func fsCodeClasses(_ *goPackage, v *value, args []ast.Expr, _ *goScope, _ int) {
	v.retry.On = nil
	what := "a condition"
	if len(args) > 0 {
		what = exprText(args[0])
	}
	v.notes = append(v.notes, "retry: the policy retries by "+what+", the code's own, so what it retries is not read")
}

// fsDelay is WithDelay(d): one fixed wait.
func (p *goPackage) fsDelay(v *value, args []ast.Expr, sc *goScope, depth int) {
	if len(args) != 1 {
		return
	}
	d := p.duration(args[0], sc, OriginExplicit, depth)
	if d.Origin == OriginUnresolved {
		fsWaitNotRead(p, v, args, sc, depth)
		return
	}
	v.retry.Backoff = &Backoff{ScheduleMS: []int64{d.D.Milliseconds()}, Jitter: fsJitterOf(v.retry.Backoff)}
}

// fsBackoff is WithBackoff(d, max) (factor 2) or WithBackoffFactor(d, max, f).
func (p *goPackage) fsBackoff(v *value, args []ast.Expr, sc *goScope, depth int) {
	if len(args) < 2 {
		return
	}
	first, most := p.duration(args[0], sc, OriginExplicit, depth), p.duration(args[1], sc, OriginExplicit, depth)
	f, ok := 2.0, true
	if len(args) == 3 {
		f, ok = p.eval(args[2], sc, depth)
	}
	if first.Origin == OriginUnresolved || most.Origin == OriginUnresolved || !ok {
		fsWaitNotRead(p, v, args, sc, depth)
		return
	}
	initial, upTo := first.D.Milliseconds(), most.D.Milliseconds()
	v.retry.Backoff = &Backoff{InitialMS: &initial, MaxMS: &upTo, Multiplier: &f, Jitter: fsJitterOf(v.retry.Backoff)}
}

// fsJitterOf keeps a jitter set before the waits (the builder keeps it too).
func fsJitterOf(b *Backoff) string {
	if b == nil {
		return ""
	}
	return b.Jitter
}

// fsWaitNotRead: the waits are computed or random (WithRandomDelay): not read.
func fsWaitNotRead(_ *goPackage, v *value, args []ast.Expr, _ *goScope, _ int) {
	v.retry.Backoff = nil
	v.notes = append(v.notes, "backoff: the waits ("+joinArgs(args)+") are not read")
}

// fsDelayFunc is WithDelayFunc: failsafehttp.DelayFunc (a Retry-After, else the delay) keeps
// the waits; the code's own function makes them unknown.
func fsDelayFunc(p *goPackage, v *value, args []ast.Expr, sc *goScope, depth int) {
	if len(args) == 1 && sc.file.pkgSel(args[0], pathFSHTTP, "DelayFunc") {
		v.notes = append(v.notes, "backoff: a Retry-After on a 429 or 503 replaces the delay (failsafehttp.DelayFunc)")
		return
	}
	v.retry.Backoff = nil
	v.notes = append(v.notes, "backoff: WithDelayFunc("+joinArgs(args)+") is the code's own, not read")
}

// fsJitter is WithJitter(j): each wait U[d−j, d+j], a spread by a duration, which no jitter
// kind of Backoff names: the jitter is left unsaid.
func fsJitter(_ *goPackage, v *value, args []ast.Expr, _ *goScope, _ int) {
	if v.retry.Backoff == nil {
		return
	}
	b := *v.retry.Backoff
	b.Jitter, b.JitterFactor = "", nil
	v.retry.Backoff = &b
	v.notes = append(v.notes, "backoff: WithJitter("+joinArgs(args)+") spreads each wait d to U[d−j, d+j]: jittered, not judged")
}

// fsJitterFactor is WithJitterFactor(f): each wait U[d·(1−f), d·(1+f)], policy's
// "randomized" jitter with f in JitterFactor; a factor the reader cannot read leaves the
// jitter unsaid (not judged).
func (p *goPackage) fsJitterFactor(v *value, args []ast.Expr, sc *goScope, depth int) {
	if v.retry.Backoff == nil || len(args) != 1 {
		return
	}
	b := *v.retry.Backoff
	b.Jitter, b.JitterFactor = "", nil
	if f, ok := p.eval(args[0], sc, depth); ok {
		b.Jitter, b.JitterFactor = "randomized", &f
	} else {
		v.notes = append(v.notes, "backoff: WithJitterFactor("+joinArgs(args)+") spreads each wait d to U[d·(1−f), d·(1+f)] by a factor computed at run time: jittered, not judged")
	}
	v.retry.Backoff = &b
}

// fsMaxDuration is WithMaxDuration(d): a bound on all attempts together.
func (p *goPackage) fsMaxDuration(v *value, args []ast.Expr, sc *goScope, depth int) {
	if len(args) != 1 {
		return
	}
	if d := p.duration(args[0], sc, OriginExplicit, depth); d.known() {
		ms := d.D.Milliseconds()
		v.retry.DeadlineMS = &ms
	}
}

// joinArgs is a call's arguments as written.
func joinArgs(args []ast.Expr) string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = exprText(a)
	}
	return joinText(s)
}
