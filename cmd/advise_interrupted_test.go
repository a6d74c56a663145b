package cmd

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/patience-dev/patience/report"
)

// stallStdin serves data, then stops the run as Ctrl-C does and blocks until the stop
// reaches it: `tail -f access.log | patience advise -` interrupted.
type stallStdin struct {
	data   *strings.Reader
	cancel context.CancelFunc
	ctx    context.Context
}

func (s *stallStdin) Read(b []byte) (int, error) {
	if s.data.Len() > 0 {
		return s.data.Read(b)
	}
	s.cancel()
	<-s.ctx.Done()
	return 0, s.ctx.Err()
}

// TestAdviseInterruptedPrintsWhatWasRead: Ctrl-C after advise read 2000 lines prints the
// report of those lines, marked interrupted, saves nothing over a good profile, and exits
// 130 (issue 24 item 9: it printed nothing).
func TestAdviseInterruptedPrintsWhatWasRead(t *testing.T) {
	var in strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&in, "10.0.0.1 - [01/May/2024:10:%02d:%02d +0000] \"GET /v1/a HTTP/1.1\" 200 0.%03d\n", i/60%60, i%60, 100+i%50)
	}
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out, errOut bytes.Buffer
			f := &Factory{IO: report.Test(&stallStdin{strings.NewReader(in.String()), cancel, ctx}, &out, &errOut)}
			code := run(ctx, f, []string{"advise", "-o", format, "--log-format", `$remote_addr - [$time_local] "$request" $status $request_time`, "-"})
			if code != ExitInterrupted {
				t.Fatalf("exit %d; want %d\nstderr: %s", code, ExitInterrupted, errOut.String())
			}
			if !strings.Contains(out.String(), "interrupted: reading stopped in (stdin) after 2000 lines") {
				t.Errorf("stdout does not say where reading stopped:\n%s", out.String())
			}
			if format == "json" && !strings.Contains(out.String(), `"interrupted": true`) {
				t.Errorf("JSON lacks \"interrupted\": true:\n%s", out.String())
			}
			if strings.Contains(errOut.String(), "nothing was printed") {
				t.Errorf("stderr %q says nothing was printed, but the report was", errOut.String())
			}
		})
	}
}
