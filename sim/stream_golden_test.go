package sim_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
)

// TestLLMStreamReplayGolden: `patience replay llm-stream` as the text report renders it, at
// 100 columns, and its JSON's stream figures — the three policies side by side: the SDK's
// 600 s total waits out slow first tokens, the proxy's 60 s idle timeout cuts and restarts
// them, the first-event bound awaits them once (issue 29 item 5).
func TestLLMStreamReplayGolden(t *testing.T) {
	sc, err := scenario.Open("llm-stream")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(context.Background(), sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	render, err := report.ReplayFormats.Get("text")
	if err != nil {
		t.Fatal(err)
	}
	r := lipgloss.NewRenderer(&bytes.Buffer{})
	r.SetColorProfile(termenv.Ascii)
	var buf bytes.Buffer
	if err := render(&buf, res, report.Options{Styles: report.NewStyles(r), Width: 100}); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "replay_llm_stream_text_100", buf.Bytes())
	byName := map[string]int{}
	for i, p := range res.Policies {
		byName[p.Name] = i
		if p.Streams == nil {
			t.Fatalf("%s: no stream figures", p.Name)
		}
	}
	sdk, proxy, fix := res.Policies[byName["sdk-default-600s"]], res.Policies[byName["proxy-idle-60s"]], res.Policies[byName["first-event-bound"]]
	if proxy.Streams.Cut == 0 || proxy.FailureReasons["read_timeout"] == 0 || proxy.Latency.P99Ms <= fix.Latency.P99Ms {
		t.Errorf("proxy-idle-60s: streams %+v, reasons %v, p99 %v vs %v; want first tokens cut at 60 s, retried, failed, waited on longer",
			proxy.Streams, proxy.FailureReasons, proxy.Latency.P99Ms, fix.Latency.P99Ms)
	}
	if sdk.Streams.Restarted == 0 || sdk.Streams.EventsWasted == 0 || fix.Streams.Restarted != 0 || fix.Streams.Cut != 0 {
		t.Errorf("sdk %+v, fix %+v; want the SDK restarting dropped streams and the fix neither cutting nor restarting", sdk.Streams, fix.Streams)
	}
}
