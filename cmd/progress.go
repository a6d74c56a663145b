package cmd

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/probe"
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
			// A finished bar is removed, so a copied terminal holds the report alone.
			bar = p.AddBar(int64(total), mpb.BarRemoveOnComplete(), mpb.PrependDecorators(decor.Name(label)), mpb.AppendDecorators(counter))
		}
		bar.SetCurrent(int64(done))
	}
	finish = func(aborted bool) {
		if bar != nil && (aborted || !bar.Completed()) {
			bar.Abort(true)
		}
		p.Wait()
	}
	return progress, finish
}

// announceProbe announces a probe's expected length (announceDuration): its --duration, or
// --requests at --rate when that ends it sooner.
func announceProbe(s *report.IOStreams, cfg probe.Config) {
	d := cfg.Duration
	detail := ""
	if cfg.Rate > 0 {
		if cfg.Requests > 0 {
			byCount := time.Duration(float64(cfg.Requests) / cfg.Rate * float64(time.Second))
			if d <= 0 || byCount < d {
				d = byCount
			}
		}
		detail = units.Count(int(math.Round(d.Seconds()*cfg.Rate))) + " requests at " + units.Rate(cfg.Rate)
	} else if cfg.Requests > 0 {
		return // a closed model bounded by a count: its length is not known ahead
	} else if cfg.Concurrency == 1 {
		detail = "1 worker"
	} else if cfg.Concurrency > 1 {
		detail = units.Count(cfg.Concurrency) + " workers"
	}
	announceDuration(s, d, detail)
}

// announceLongerThan is the expected run time above which a command says how long it will take.
const announceLongerThan = 10 * time.Second

// announceDuration writes one line on stderr before a run expected to last longer than
// announceLongerThan — "about 15 s (probe 5 s at 200/s, …)" — so a run in a pipe, with no
// progress bar, does not look hung. --quiet silences it.
func announceDuration(s *report.IOStreams, d time.Duration, detail string) {
	if s.Quiet || d <= announceLongerThan {
		return
	}
	line := "about " + units.Duration(d.Round(time.Second))
	if detail != "" {
		line += " (" + detail + ")"
	}
	fmt.Fprintln(s.ErrOut, line)
}
