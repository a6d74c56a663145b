package cmd

import (
	"fmt"
	"strings"

	"github.com/patience-dev/patience/report"
)

// finishProfile is how probe and advise end once they hold a profile, in this order: save
// it (--save) before rendering, so the measurement survives a renderer that fails; render
// the report on stdout; then return a save that failed; else the exit the verdict chooses.
// save and exit are the command's own steps; rep is what is rendered (the profile, or
// advise's result around it).
func finishProfile[T any](streams *report.IOStreams, render report.Renderer[T], rep T, save, exit func() error) error {
	saveErr := save()
	if err := render(streams.Out, rep, streams.Options()); err != nil {
		return err
	}
	if saveErr != nil {
		return saveErr
	}
	return exit()
}

// finishPolicies is how replay and storm end: they render what the run returned and choose
// the exit. A run stopped (Ctrl-C) after some policies finished (finished of them) renders
// them and exits 130 pointing at them; one stopped before any finished renders nothing and
// says so, also 130. A run that finished returns its gate (policiesGate).
func finishPolicies[T any](streams *report.IOStreams, render report.Renderer[T], res T, finished int, runErr, gate error) error {
	if runErr != nil && finished == 0 {
		return stoppedEmpty(runErr)
	}
	if err := render(streams.Out, res, streams.Options()); err != nil {
		return err
	}
	if runErr != nil {
		return stopped(runErr)
	}
	return gate
}

// noFailHelp is replay's and storm's --no-fail, as check has it.
const noFailHelp = "exit 0 though a policy is judged ✗; the report is the same"

// policiesGate is replay's and storm's exit once the run finished: 1 when it judged a policy
// ✗ (failing names them, replay.Result.Failing), so that every ✗ exits non-zero as probe's,
// advise's and check's do (issue 26); nil with --no-fail, for a comparison read as a report.
func policiesGate(failing []string, noFail bool) error {
	if len(failing) == 0 || noFail {
		return nil
	}
	return GateFailed(fmt.Errorf("judged ✗: %s (exit 1; --no-fail exits 0 with the same report)", strings.Join(failing, ", ")))
}
