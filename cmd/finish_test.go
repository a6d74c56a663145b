package cmd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/patience-dev/patience/report"
)

// TestFinishProfileOrder: the profile is saved before the report renders (a renderer that
// fails loses nothing measured); a failed render wins, then a failed save, and the verdict's
// exit is asked for only when both succeeded.
func TestFinishProfileOrder(t *testing.T) {
	errRender, errSave, errExit := errors.New("render"), errors.New("save"), errors.New("exit")
	for _, tc := range []struct {
		name               string
		renderErr, saveErr error
		want               error
		wantSteps          string
	}{
		{"all well", nil, nil, errExit, "save render exit"},
		{"save fails", nil, errSave, errSave, "save render"},
		{"render fails", errRender, nil, errRender, "save render"},
		{"both fail", errRender, errSave, errRender, "save render"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var steps []string
			var out bytes.Buffer
			render := func(w io.Writer, rep string, _ report.Options) error {
				steps = append(steps, "render")
				_, _ = io.WriteString(w, rep)
				return tc.renderErr
			}
			save := func() error { steps = append(steps, "save"); return tc.saveErr }
			exit := func() error { steps = append(steps, "exit"); return errExit }
			err := finishProfile(report.Test(nil, &out, &bytes.Buffer{}), render, "the report", save, exit)
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			if got := strings.Join(steps, " "); got != tc.wantSteps {
				t.Errorf("steps %q, want %q", got, tc.wantSteps)
			}
			if out.String() != "the report" {
				t.Errorf("stdout %q", out.String())
			}
		})
	}
}

// TestFinishPolicies: a whole run renders and exits 0; a run stopped after some policies
// finished renders them and exits 130 ("partial results above"); one stopped before any
// finished renders nothing (exit 130, nothing to report); another error after some policies
// is returned as it is, after they render; a failed render wins; a finished run with a
// policy judged ✗ exits 1 naming it, unless --no-fail.
func TestFinishPolicies(t *testing.T) {
	errBroken, errRender := errors.New("broken"), errors.New("render")
	for _, tc := range []struct {
		name      string
		finished  int
		runErr    error
		renderErr error
		failing   []string
		noFail    bool
		want      error
		wantOut   string
		wantExit  int
	}{
		{"whole run", 3, nil, nil, nil, false, nil, "the report", ExitOK},
		{"a policy judged bad", 3, nil, nil, []string{"naive", "retries"}, false, nil, "the report", ExitGateFailed},
		{"judged bad, --no-fail", 3, nil, nil, []string{"naive"}, true, nil, "the report", ExitOK},
		{"stopped after some, one bad", 2, context.Canceled, nil, []string{"naive"}, false, ErrInterrupted, "the report", ExitInterrupted},
		{"deadline after some", 2, context.DeadlineExceeded, nil, nil, false, ErrInterrupted, "the report", ExitInterrupted},
		{"stopped before any", 0, context.Canceled, nil, nil, false, errNothingFinished, "", ExitInterrupted},
		{"other error after some", 1, errBroken, nil, []string{"naive"}, false, errBroken, "the report", ExitUsage},
		{"render fails", 3, nil, errRender, []string{"naive"}, false, errRender, "the report", ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			render := func(w io.Writer, rep string, _ report.Options) error {
				_, _ = io.WriteString(w, rep)
				return tc.renderErr
			}
			err := finishPolicies(report.Test(nil, &out, &bytes.Buffer{}), render, "the report", tc.finished, tc.runErr, policiesGate(tc.failing, tc.noFail))
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			if ExitCode(err) != tc.wantExit {
				t.Errorf("exit %d, want %d", ExitCode(err), tc.wantExit)
			}
			if out.String() != tc.wantOut {
				t.Errorf("stdout %q, want %q", out.String(), tc.wantOut)
			}
		})
	}
}

// The gate names the policies judged ✗ and how to keep exit 0.
func TestPoliciesGate(t *testing.T) {
	if err := policiesGate(nil, false); err != nil {
		t.Errorf("no policy judged bad: %v, want nil", err)
	}
	err := policiesGate([]string{"naive", "retries"}, false)
	if ExitCode(err) != ExitGateFailed || !strings.Contains(err.Error(), "judged ✗: naive, retries") || !strings.Contains(err.Error(), "--no-fail") {
		t.Errorf("gate %v (exit %d), want exit 1 naming naive, retries and --no-fail", err, ExitCode(err))
	}
}
