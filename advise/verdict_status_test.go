package advise

import (
	"testing"

	"github.com/patience-dev/patience/internal/corpus"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/verdict"
)

// TestJudgeNoStatusThreshold: when most requests carry no status (counted as answered), the
// verdict is at best provisional — an error rate nobody measured is not a ✓.
func TestJudgeNoStatusThreshold(t *testing.T) {
	for _, c := range []struct {
		noStatus, requests int64
		want               bool
	}{
		{0, 10, false}, {5, 10, false}, {6, 10, true}, {10, 10, true}, {1, 1, true},
	} {
		a := newAccum()
		a.noStatus, a.all.requests = c.noStatus, c.requests
		var v profile.Verdict
		a.judgeNoStatus(&v)
		if got := v.Has(CodeStatusUnknown); got != c.want || (got && v.Level != verdict.Provisional) {
			t.Errorf("%d of %d without status: clause %v level %q, want %v", c.noStatus, c.requests, got, v.Level, c.want)
		}
	}
}

// TestCorpusHlogNotGood: jHiccup's interval log (HdrHistogram's own test resource) carries
// latencies only — HistogramLogReader yields histograms, no status — so its 48,761 values
// give a timeout but never a ✓ (it was "good": an unknown error rate read as none).
func TestCorpusHlogNotGood(t *testing.T) {
	r := run(t, Options{Files: []string{corpus.Path(t, "hdrhistogram-jHiccup-2.0.7S.logV2.hlog")}})
	v := r.Recommendation.Verdict
	if v.Level == verdict.Good || !v.Has(CodeStatusUnknown) {
		t.Fatalf("verdict %+v: want provisional with %s", v, CodeStatusUnknown)
	}
}
