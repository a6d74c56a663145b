package cmd

import (
	"io"

	"github.com/patience-dev/patience/report"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progressBar draws one mpb bar on stderr when it may (a terminal, not --quiet, a format for
// people); otherwise both functions do nothing. The bar is created on the first report, when
// the total is known. finish must be called before the report prints: it aborts an unfinished
// bar and waits for the container.
func progressBar(s *report.IOStreams, format, label string, counter decor.Decorator) (progress func(done, total int), finish func(aborted bool)) {
	show := s.ShowProgress(format)
	p := mpb.New(mpb.ContainerOptional(mpb.WithOutput(io.Discard), !show),
		mpb.ContainerOptional(mpb.WithOutput(s.ErrOut), show), mpb.WithWidth(40))
	var bar *mpb.Bar
	progress = func(done, total int) {
		if bar == nil {
			bar = p.AddBar(int64(total), mpb.PrependDecorators(decor.Name(label)), mpb.AppendDecorators(counter))
		}
		bar.SetCurrent(int64(done))
	}
	finish = func(aborted bool) {
		if bar != nil && (aborted || !bar.Completed()) {
			bar.Abort(false)
		}
		p.Wait()
	}
	return progress, finish
}
