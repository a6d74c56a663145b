package verdict

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestRankAndSymbol(t *testing.T) {
	for _, tc := range []struct {
		l      Level
		rank   int
		symbol string
	}{
		{"", 0, "✓"},
		{Good, 0, "✓"},
		{Provisional, 1, "~"},
		{Degraded, 1, "~"},
		{Bad, 2, "✗"},
	} {
		if got := tc.l.Rank(); got != tc.rank {
			t.Errorf("%q.Rank() = %d, want %d", tc.l, got, tc.rank)
		}
		if got := tc.l.Symbol(); got != tc.symbol {
			t.Errorf("%q.Symbol() = %q, want %q", tc.l, got, tc.symbol)
		}
	}
}

func TestWorse(t *testing.T) {
	for _, tc := range []struct{ a, b, want Level }{
		{"", "", Good},
		{"", Good, Good},
		{Good, Degraded, Degraded},
		{Degraded, Good, Degraded},
		{Degraded, Bad, Bad},
		{Bad, Provisional, Bad},
		{Provisional, Degraded, Provisional}, // equals keep the first
	} {
		if got := tc.a.Worse(tc.b); got != tc.want {
			t.Errorf("%q.Worse(%q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestAddOrdersBySeriousness: the most serious clause first, equals in the order added,
// the level the worst of the clauses'.
func TestAddOrdersBySeriousness(t *testing.T) {
	var v Verdict
	v.Add("a", Degraded, "first degraded")
	v.Add("b", Good, "good")
	v.Add("c", Bad, "bad")
	v.Add("d", Degraded, "second degraded")
	v.Add("e", Bad, "second bad")
	var codes []string
	for _, r := range v.Reasons {
		codes = append(codes, r.Code)
	}
	if want := []string{"c", "e", "a", "d", "b"}; !reflect.DeepEqual(codes, want) {
		t.Errorf("order %v, want %v", codes, want)
	}
	if v.Level != Bad {
		t.Errorf("level %q, want bad", v.Level)
	}
	if v.Headline() != "bad" || !v.Has("d") || v.Has("z") || v.Reason("a").Text != "first degraded" {
		t.Errorf("headline %q, has d %v, has z %v, reason a %q", v.Headline(), v.Has("d"), v.Has("z"), v.Reason("a").Text)
	}
	if got, want := v.Text(), "bad; second bad; first degraded; second degraded; good"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
}

func TestUnmarshalLegacyString(t *testing.T) {
	var v Verdict
	if err := json.Unmarshal([]byte(`"looks fine"`), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Reasons) != 1 || v.Reasons[0].Code != CodeLegacy || v.Text() != "looks fine" || v.Level != "" {
		t.Errorf("legacy verdict read as %+v", v)
	}
	in := Verdict{Level: Degraded, Reasons: []Reason{{Code: "x", Level: Degraded, Text: "t"}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Verdict
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip %s → %+v", b, out)
	}
	if err := json.Unmarshal([]byte(`[1]`), &out); err == nil {
		t.Error("an array read as a verdict without error")
	}
}

func TestAppendKeepsNarrativeOrder(t *testing.T) {
	var v Verdict
	v.Append("failed", Bad, "12% failed")
	v.Append("while_down", Degraded, "40 of them arrived while the dependency was down")
	v.Append("not_recovered", Bad, "does not recover")
	if got, want := v.Text(), "12% failed; 40 of them arrived while the dependency was down; does not recover"; got != want || v.Level != Bad {
		t.Errorf("Text() = %q (level %q), want %q (bad)", got, v.Level, want)
	}
}
