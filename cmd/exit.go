package cmd

import (
	"context"
	"errors"
	"fmt"
)

// Exit codes are the contract of DESIGN §2; ExitCode is the only place that decides them.
const (
	ExitOK            = 0   // ran; nothing failed
	ExitGateFailed    = 1   // ran; a gate failed (check findings, probe threshold, --strict budget)
	ExitUsage         = 2   // usage or input error: bad flag, unreadable or invalid file
	ExitCannotMeasure = 3   // target unreachable, every request failed, generator could not keep the rate
	ExitInterrupted   = 130 // interrupted: what was measured so far is still printed and saved
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
	return ExitGateFailed
}

// stopped maps an error that ended a run early because its context was cancelled (Ctrl-C) or
// ran out to ErrInterrupted; a command returns it after rendering what it had.
func stopped(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ErrInterrupted
	}
	return err
}
