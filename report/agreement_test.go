package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/live"
	"github.com/patience-dev/patience/replay"
)

// agreementFixture is a hand-made pair of results: two policies in the simulation, the same
// two (in another order) plus one the simulation lacks in the live run.
func agreementFixture(latenessMs float64) *live.Agreement {
	simRes := &replay.Result{Scenario: "payment-double-charge", Policies: []replay.PolicyResult{
		{Name: "with-key", SuccessRate: 1, Amplification: 1.67, WorkerSaturation: 0.5, Latency: replay.Latency{P99Ms: 4000}},
		{Name: "without-key", SuccessRate: 0.804, Amplification: 1.578, Duplicates: 2349, WorkerSaturation: 1, Latency: replay.Latency{P99Ms: 9000}},
	}}
	liveRes := &replay.Result{Scenario: "payment-double-charge", Mode: "live", Policies: []replay.PolicyResult{
		{Name: "without-key", SuccessRate: 0.799, Amplification: 1.576, Duplicates: 2351, WorkerSaturation: 1, Latency: replay.Latency{P99Ms: 9100}},
		{Name: "only-live", SuccessRate: 0.5},
		{Name: "with-key", SuccessRate: 1, Amplification: 1.666, WorkerSaturation: 0.5, Latency: replay.Latency{P99Ms: 4100}},
	}}
	return live.NewAgreement(simRes, liveRes, 10, latenessMs)
}

func TestAgreementGoldens(t *testing.T) {
	for _, tc := range []struct {
		name     string
		render   Renderer[*live.Agreement]
		color    bool
		lateness float64
	}{
		{"agreement_text_80", AgreementText, false, 3},
		{"agreement_text_color", AgreementText, true, 3},
		{"agreement_text_busy", AgreementText, false, 40},
		{"agreement_markdown", AgreementMarkdown, false, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tc.render(&buf, agreementFixture(tc.lateness), replayOptions(tc.color, 80)); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, tc.name, buf.Bytes())
		})
	}
}

// TestAgreementPairsByName checks that live policies are matched to simulated ones by name,
// in the simulation's order, and that a policy missing on one side is left out.
func TestAgreementPairsByName(t *testing.T) {
	names, simP, liveP := agreementPairs(agreementFixture(0))
	if strings.Join(names, ",") != "with-key,without-key" {
		t.Fatalf("names %v", names)
	}
	for i := range names {
		if simP[i].Name != names[i] || liveP[i].Name != names[i] {
			t.Errorf("pair %d: %s vs %s", i, simP[i].Name, liveP[i].Name)
		}
	}
	if liveP[1].Duplicates != 2351 {
		t.Errorf("without-key live duplicates %d, want 2351", liveP[1].Duplicates)
	}
}

// TestAgreementFidelityWarning: 3 ms × speed 10 = 30 ms of scenario time is faithful;
// 40 ms × 10 = 400 ms is past the 250 ms line and must say the machine was too busy.
func TestAgreementFidelityWarning(t *testing.T) {
	if warn, _ := agreementFidelity(agreementFixture(3)); warn {
		t.Error("30 ms of scenario lateness should not warn")
	}
	warn, text := agreementFidelity(agreementFixture(40))
	if !warn || !strings.Contains(text, "too busy") || !strings.Contains(text, "400 ms") {
		t.Errorf("400 ms of scenario lateness: warn=%v %q", warn, text)
	}
}
