package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/storm"
)

// Exit codes are a contract (the root command's help lists them); ExitCode is the only place
// that decides them.
const (
	ExitOK            = 0   // ran; nothing failed
	ExitGateFailed    = 1   // ran; a gate failed (check findings, probe threshold, --strict budget)
	ExitUsage         = 2   // usage or input error: bad flag, unreadable or invalid file
	ExitCannotMeasure = 3   // target unreachable, every request failed, generator could not keep the rate
	ExitInterrupted   = 130 // interrupted: what was measured so far is still printed and saved
	// ExitInternal is a bug in patience: a panic turned into a report (EX_SOFTWARE,
	// sysexits.h), never the usage code the Go runtime would exit with.
	ExitInternal = 70
)

// ExitError carries an exit code chosen by a command together with the error to print.
// A nil Err means the command already explained itself on stdout (a failed gate) and
// nothing more is printed.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// UsageError marks a bad flag, argument or input file (exit 2).
func UsageError(err error) error { return &ExitError{Code: ExitUsage, Err: err} }

// UsageErrorf formats a usage error (exit 2).
func UsageErrorf(format string, a ...any) error {
	return UsageError(fmt.Errorf(format, a...))
}

// CannotMeasureError marks a run that could not measure what it was asked to (exit 3).
func CannotMeasureError(err error) error { return &ExitError{Code: ExitCannotMeasure, Err: err} }

// GateFailed marks a run whose report has already been rendered and whose gate failed (exit 1).
func GateFailed(err error) error { return &ExitError{Code: ExitGateFailed, Err: err} }

// ErrInterrupted is returned by a command that was stopped by Ctrl-C after it printed and
// saved what it had measured.
var ErrInterrupted = &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}

// ExitCode maps the error a command returned to the process exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if errors.Is(err, context.Canceled) {
		return ExitInterrupted
	}
	// A failed gate is always typed (GateFailed); an error no command classified is a file
	// or a stream that could not be read or written: an input error, never exit 1.
	return ExitUsage
}

// errNothingFinished is the interruption of a run stopped before it had anything to report.
var errNothingFinished = &ExitError{Code: ExitInterrupted, Err: errors.New("stopped before anything finished: nothing to report")}

// stoppedEmpty is stopped for a run that rendered nothing: the message does not point at
// partial results above.
func stoppedEmpty(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return errNothingFinished
	}
	return err
}

// interruptedText is what stderr says of an interruption: "partial results above" only when
// the command rendered them (it returned ErrInterrupted); the input it was still waiting on
// when nothing was read; else the command's own words, or that nothing finished.
func interruptedText(err error) string {
	if errors.Is(err, ErrInterrupted) {
		return "partial results above"
	}
	var se *input.StoppedError
	if errors.As(err, &se) {
		return "stopped while waiting for input from " + report.Sanitize(se.Name) + ": nothing to report"
	}
	var ee *ExitError
	if errors.As(err, &ee) && ee.Code == ExitInterrupted && ee.Err != nil {
		return report.Sanitize(ee.Err.Error())
	}
	return errNothingFinished.Err.Error()
}

// interruptedInput is the interruption an input error stands for when the run was stopped
// while reading: it names the input waited on (input.StoppedError), else says nothing
// finished.
func interruptedInput(err error) error {
	var se *input.StoppedError
	if errors.As(err, &se) {
		return &ExitError{Code: ExitInterrupted, Err: se}
	}
	if se := input.Abandoned(); se != nil {
		// The loader's error no longer says it, but the process interrupt saw what it
		// abandoned.
		return &ExitError{Code: ExitInterrupted, Err: se}
	}
	return errNothingFinished
}

// stopped maps an error that ended a run early because its context was cancelled (Ctrl-C) or
// ran out to ErrInterrupted; a command returns it after rendering what it had.
func stopped(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ErrInterrupted
	}
	return err
}

// workerPanic reports a panic that a worker goroutine recovered and handed back as an error
// (storm's parallel policies: *storm.PanicError) as the internal error it is, exit 70; ok is
// false for any other error. The top-level recover sees only the command's own goroutine.
func workerPanic(errOut io.Writer, err error) (code int, ok bool) {
	var pe *storm.PanicError
	if !errors.As(err, &pe) {
		return 0, false
	}
	return internalError(errOut, pe.Value, pe.Stack), true
}

// internalError reports a panic that reached the top of a command: what a bug report needs
// (the value, the version, the stack of the panicking goroutine) on stderr, and exit 70.
// Whatever the command had already written to stdout (a partial report) stays there.
func internalError(errOut io.Writer, p any, stack []byte) int {
	v := currentVersion()
	fmt.Fprintf(errOut, "error: internal error, please report it at https://github.com/patience-dev/patience/issues with the lines below\n")
	fmt.Fprintf(errOut, "panic: %s\npatience %s (commit %s, %s)\n", sanitizePanic(p), v.Version, v.Commit, v.Go)
	if len(stack) > 0 {
		fmt.Fprintf(errOut, "%s\n", strings.TrimRight(string(stack), "\n"))
	}
	return ExitInternal
}

// sanitizePanic writes a panic value on one line without control characters (a panic may
// carry user input).
func sanitizePanic(p any) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, fmt.Sprint(p))
}

// recoverInternal is deferred at the top of run: it turns a panic into internalError's report
// and exit code, stored in *code.
func recoverInternal(errOut io.Writer, code *int) {
	if p := recover(); p != nil {
		*code = internalError(errOut, p, debug.Stack())
	}
}
