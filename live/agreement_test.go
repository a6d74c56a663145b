package live

import (
	"encoding/json"
	"testing"

	"github.com/patience-dev/patience/replay"
)

// TestNewAgreementJudgesFidelity: the lateness that counts is scenario time (real lateness ×
// speed), and a live run is faithful up to FaithfulLatenessMs of it, inclusive.
func TestNewAgreementJudgesFidelity(t *testing.T) {
	for _, tc := range []struct {
		name           string
		speed, lateMs  float64
		wantScenarioMs float64
		wantFaithful   bool
	}{
		{"on time", 10, 3, 30, true},
		{"at the line", 10, 25, 250, true},
		{"past the line", 10, 25.1, 251, false},
		{"busy", 10, 40, 400, false},
		{"slow speed forgives", 1, 200, 200, true},
		{"no lateness", 30, 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAgreement(&replay.Result{}, &replay.Result{Mode: "live"}, tc.speed, tc.lateMs)
			if a.Schema != AgreementSchema || a.Speed != tc.speed || a.TimerLatenessP99Ms != tc.lateMs {
				t.Errorf("fields not carried: %+v", a)
			}
			if d := a.ScenarioLatenessP99Ms - tc.wantScenarioMs; d > 1e-9 || d < -1e-9 {
				t.Errorf("scenario lateness %g, want %g", a.ScenarioLatenessP99Ms, tc.wantScenarioMs)
			}
			if a.Faithful != tc.wantFaithful {
				t.Errorf("faithful %v, want %v", a.Faithful, tc.wantFaithful)
			}
		})
	}
}

// TestAgreementJSONKeepsItsFields: the judgement is added after the fields the schema
// always had, which keep their names and order.
func TestAgreementJSONKeepsItsFields(t *testing.T) {
	b, err := json.Marshal(NewAgreement(nil, nil, 10, 40))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema":"patience/agreement/v1","simulated":null,"live":null,"speed":10,"timer_lateness_p99_ms":40,"scenario_lateness_p99_ms":400,"faithful":false}`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
}
