package scenario

import (
	"errors"
	"strings"
	"testing"
)

const targetOnly = `name: tiny
target:
  latency: {fixed: 10ms}
  phases:
    - {name: broken, at: 5s, for: 1s, faults: [{status: 503}]}
`

func TestParseForServeNeedsOnlyTarget(t *testing.T) {
	sc, err := ParseFor([]byte(targetOnly), "tiny.yaml", ForServe)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "tiny" || len(sc.Target.Phases) != 1 || sc.Duration != 0 || len(sc.Policies) != 0 {
		t.Errorf("loaded %+v", sc)
	}
}

// TestParseForReportsEveryMissingSection: one *Error at the top of the file names every
// section the purpose needs and the file lacks, each with what it is for.
func TestParseForReportsEveryMissingSection(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		purpose    Purpose
		want       []string // substrings, in order
		field      string
	}{
		{"target only, for replay", targetOnly, ForReplay,
			[]string{"tiny.yaml:1:1: 3 required sections missing for replay (load, duration, policy):",
				"\n  load: who calls the target", "\n  duration: how long arrivals continue", "\n  policy: the caller's policy",
				"serve needs only target"}, ""},
		{"nothing but a name, for replay", "name: x\n", ForReplay,
			[]string{"4 required sections missing for replay (load, duration, target, policy)"}, ""},
		{"a rate without duration or policy", "load: {rate: 1/s}\ntarget: {latency: {fixed: 1ms}}\n", ForReplay,
			[]string{"2 required sections missing for replay (duration, policy)"}, ""},
		// One missing section keeps its own message and field.
		{"a burst needs no duration", "load: {burst: 10}\ntarget: {latency: {fixed: 1ms}}\n", ForReplay,
			[]string{"tiny.yaml:1:1: policy: required: the caller's policy"}, "policy"},
		{"only the policy", "duration: 1m\nload: {rate: 1/s}\ntarget: {latency: {fixed: 1ms}}\n", ForReplay,
			[]string{"tiny.yaml:1:1: policy: required: the caller's policy"}, "policy"},
		{"an empty policy list", "duration: 1m\nload: {rate: 1/s}\ntarget: {latency: {fixed: 1ms}}\npolicies: []\n", ForReplay,
			[]string{"policy: required: the caller's policy"}, "policy"},
		// A problem in a section read before the first missing one still comes first.
		{"a bad rate before the missing sections", "duration: 1m\nload: {rate: 0/s}\n", ForReplay,
			[]string{"tiny.yaml:2:", "load.rate: must be above 0"}, "load.rate"},
		{"serve without a target", "name: x\nload: {rate: 1/s}\n", ForServe,
			[]string{"tiny.yaml:1:1: target: required: how the dependency behaves"}, "target"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFor([]byte(tc.yaml), "tiny.yaml", tc.purpose)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("want one *Error, got %T %v", err, err)
			}
			if se.Field != tc.field {
				t.Errorf("field %q, want %q", se.Field, tc.field)
			}
			msg, at := err.Error(), 0
			for _, w := range tc.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("error %q lacks %q (in order)", msg, w)
				}
				at += i + len(w)
			}
		})
	}
}

// TestParseForServeValidatesWhatIsThere: optional sections are still checked strictly.
func TestParseForServeValidatesWhatIsThere(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"bad rate", targetOnly + "load: {rate: 0/s}\n", "load.rate: must be above 0"},
		{"bad policy", targetOnly + "policy: {timeout: fast}\n", "policy.timeout"},
		{"bad duration", targetOnly + "duration: 5\n", "duration:"},
		{"empty phase", "target: {latency: {fixed: 1ms}, phases: [{at: 0s, for: 1s}]}\n", "changes nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFor([]byte(tc.yaml), "tiny.yaml", ForServe)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// A rate without duration is a replay problem, not serve's.
	if _, err := ParseFor([]byte(targetOnly+"load: {rate: 1/s}\n"), "tiny.yaml", ForServe); err != nil {
		t.Errorf("serve with a rate and no duration: %v", err)
	}
}

func TestParseForBundledScenariosLoadForServe(t *testing.T) {
	for _, name := range []string{DefaultName, "payment-double-charge"} {
		if _, err := OpenFor(name, ForServe); err != nil {
			t.Errorf("%s for serve: %v", name, err)
		}
	}
}

func TestParsePurpose(t *testing.T) {
	for i, n := range PurposeNames() {
		p, err := ParsePurpose(n)
		if err != nil || p != Purpose(i) || p.String() != n {
			t.Errorf("ParsePurpose(%q) = %v, %v", n, p, err)
		}
	}
	if _, err := ParsePurpose("storm"); err == nil {
		t.Error("ParsePurpose(storm) accepted")
	}
}
