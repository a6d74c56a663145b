package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/patience-dev/patience/demo"
	"github.com/patience-dev/patience/internal/golden"
)

// demoFixture is the tour's document from the other reports' fixtures: the probe's, the
// replay's and the simulated-vs-live comparison's.
func demoFixture(t *testing.T) *demo.Result {
	t.Helper()
	return &demo.Result{
		Schema:   demo.Schema,
		Target:   demo.Target{Scenario: "delivery-date-hang", URL: "http://127.0.0.1:40123/v1/delivery-date", Description: "a delivery-date API, lognormal p50 80 ms, p99 400 ms, that hangs from 1 min"},
		RatePerS: 200, DurationMs: 5000, Speed: 30,
		Probe: probeFixture(), Replay: replayFixture(t), Live: agreementFixture(3),
	}
}

func TestDemoGoldens(t *testing.T) {
	d := demoFixture(t)
	for _, w := range goldenWidths {
		var b bytes.Buffer
		if err := DemoText(&b, d, replayOptions(false, w)); err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, fmt.Sprintf("demo_text_%d", w), b.Bytes())
	}
	var md bytes.Buffer
	if err := DemoMarkdown(&md, d, replayOptions(false, 100)); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "demo_markdown", md.Bytes())
}

// -o json is one document holding the three stages.
func TestDemoJSONIsOneDocument(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, demoFixture(t), Options{}); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&b)
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if dec.More() {
		t.Error("more than one JSON value")
	}
	if doc["schema"] != demo.Schema {
		t.Errorf("schema = %v", doc["schema"])
	}
	for k, schema := range map[string]string{"probe": "patience/probe/v1", "replay": "patience/replay/v1", "live": "patience/agreement/v1"} {
		part, _ := doc[k].(map[string]any)
		if part["schema"] != schema {
			t.Errorf("%s.schema = %v, want %s", k, part["schema"], schema)
		}
	}
	if u := doc["target"].(map[string]any)["url"]; u != "http://127.0.0.1:40123/v1/delivery-date" {
		t.Errorf("target.url = %v, want the URL", u)
	}
}
