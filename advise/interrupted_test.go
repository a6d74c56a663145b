package advise

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// stallReader serves data, then stops the run (as Ctrl-C does) and blocks until the stop
// reaches the reader: the input of `tail -f access.log | patience advise -` interrupted.
type stallReader struct {
	data   *strings.Reader
	cancel context.CancelFunc
	ctx    context.Context
}

func (s *stallReader) Read(b []byte) (int, error) {
	if s.data.Len() > 0 {
		return s.data.Read(b)
	}
	s.cancel()
	<-s.ctx.Done()
	return 0, s.ctx.Err()
}

// TestInterruptedKeepsWhatWasRead: a run stopped after reading 2000 lines (220 KB, more than
// the 64 KiB looked at to tell the format) reports those 2000 lines, marked interrupted, its
// first note saying where reading stopped (issue 24 item 9: Run returned only the stop's
// error, and the command printed nothing).
func TestInterruptedKeepsWhatWasRead(t *testing.T) {
	var in strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&in, "10.0.0.1 - [01/May/2024:10:%02d:%02d +0000] \"GET /v1/a HTTP/1.1\" 200 0.%03d \"200\" \"0.100\" \"0.110\"\n", i/60%60, i%60, 100+i%50)
	}
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			res, err := Run(ctx, Options{Files: []string{"-"}, Workers: workers, LogFormat: timedFormat,
				Stdin: &stallReader{data: strings.NewReader(in.String()), cancel: cancel, ctx: ctx}})
			if err != nil {
				t.Fatalf("Run: %v; want the 2000 lines read before the stop", err)
			}
			if !res.Interrupted || res.Source.Lines != 2000 || res.Responses != 2000 {
				t.Errorf("interrupted %v, lines %d, responses %d; want true, 2000, 2000", res.Interrupted, res.Source.Lines, res.Responses)
			}
			if len(res.Notes) == 0 || !strings.HasPrefix(res.Notes[0], "interrupted: reading stopped in (stdin) after 2000 lines") {
				t.Errorf("notes %q: want where reading stopped", res.Notes)
			}
		})
	}
}

// TestInterruptedBeforeAnySample: a stop before any line was read is the stop's error, not a
// report of nothing.
func TestInterruptedBeforeAnySample(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Run(ctx, Options{Files: []string{"-"},
		Stdin: &stallReader{data: strings.NewReader(""), cancel: cancel, ctx: ctx}})
	if err == nil || !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("err %v; want the stop's error", err)
	}
}

// timedFormat is the nginx log_format of the lines TestInterruptedKeepsWhatWasRead reads.
const timedFormat = `$remote_addr - [$time_local] "$request" $status $request_time "$upstream_status" "$upstream_header_time" "$upstream_response_time"`
