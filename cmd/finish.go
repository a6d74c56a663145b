package cmd

import "github.com/patience-dev/patience/report"

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
// says so, also 130.
func finishPolicies[T any](streams *report.IOStreams, render report.Renderer[T], res T, finished int, runErr error) error {
	if runErr != nil && finished == 0 {
		return stoppedEmpty(runErr)
	}
	if err := render(streams.Out, res, streams.Options()); err != nil {
		return err
	}
	if runErr != nil {
		return stopped(runErr)
	}
	return nil
}
