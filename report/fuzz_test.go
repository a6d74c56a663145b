package report

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/profile"
)

// fuzzProfile builds the JSON of a saved profile from fuzz input: data is read as pairs of
// (value µs, count) of 8 bytes each, recorded into every series of a histogram up to
// 2^40 µs (12.7 days, past the 24 h a profile may hold), so the values and counts a crafted
// file may hold reach ParseProfile.
func fuzzProfile(t *testing.T, data []byte, requests, responses int64, interrupted bool) []byte {
	h := hdrhistogram.New(1, 1<<40, 3)
	for len(data) >= 16 {
		v := int64(binary.LittleEndian.Uint64(data) >> 1)
		n := int64(binary.LittleEndian.Uint64(data[8:]) >> 1)
		data = data[16:]
		_ = h.RecordValues(max(v, 1), max(n, 1)) // out-of-range values and overflowing totals are refused
	}
	enc, err := profile.EncodeHistogram(h)
	if err != nil {
		t.Skip()
	}
	hs := map[string]string{}
	for _, s := range []string{profile.SeriesConnect, profile.SeriesTTFBFresh, profile.SeriesTTFBReused, profile.SeriesTotalFresh, profile.SeriesTotalReused, profile.SeriesGood, profile.SeriesLate, profile.SeriesSentReused} {
		hs[s] = enc
	}
	r := profile.Profile{
		Schema: profile.Schema, Target: profile.Target{URL: "http://127.0.0.1/", Method: "GET"}, Model: "open", Conn: "both",
		Requests: requests, Responses: responses, Interrupted: interrupted, MaxTimeoutMs: 30000,
		Status: map[string]int64{"200": responses, "503": requests - responses}, Errors: map[string]int64{"timeout": requests},
		Schedule:  profile.Schedule{RequestedPerS: f(float64(requests)), AchievedPerS: float64(responses), RateHeld: true},
		Histogram: enc, Histograms: hs,
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzMergeRender: whatever a saved profile holds, ParseProfile refuses it or Merge and every
// probe format render it without a panic, at every width (issue 17: the text report's bars
// called strings.Repeat with a negative count for counts past 2^63 / 40).
func FuzzMergeRender(f *testing.F) {
	pair := func(v, n uint64) []byte {
		b := binary.LittleEndian.AppendUint64(nil, v<<1)
		return binary.LittleEndian.AppendUint64(b, n<<1)
	}
	f.Add(pair(1000, 1), int64(1), int64(1), false, 80)
	f.Add(append(pair(1000, 1e15), pair(90_000, 1e15)...), int64(1), int64(1), false, 0)
	f.Add(append(pair(1, 1<<60), pair(5000, 3)...), int64(math.MaxInt64), int64(math.MaxInt64), true, 20)
	f.Add(pair(1<<40, 7), int64(-5), int64(3), false, 200)
	f.Add(append(pair(2500, 1), pair(2500, 9)...), int64(10), int64(0), true, 1)
	f.Add([]byte{}, int64(0), int64(0), false, 100)
	f.Fuzz(func(t *testing.T, data []byte, requests, responses int64, interrupted bool, width int) {
		b := fuzzProfile(t, data, requests, responses, interrupted)
		r, err := profile.Parse("fuzz.json", b)
		if err != nil {
			return
		}
		m, err := profile.Merge([]*profile.Profile{r, r}, profile.RecommendParams{})
		if err != nil {
			return
		}
		o := probeOptions(false)
		o.Width = width % 400
		for _, name := range ProbeFormats.Names() {
			render, _ := ProbeFormats.Get(name)
			if err := render(io.Discard, m, o); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	})
}

// TestProbeBarsHugeCounts: bars for counts whose product with the bar width overflows int64
// (32 merged profiles of 2^53 samples each) drew strings.Repeat with a negative count.
func TestProbeBarsHugeCounts(t *testing.T) {
	r := probeFixture()
	r.Distribution = []profile.Bucket{{FromMs: 1, ToMs: 2, Count: 1 << 58}, {FromMs: 2, ToMs: 5, Count: 1 << 57}, {FromMs: 5, ToMs: 10, Count: 1}, {FromMs: 10, ToMs: 20, Count: 0}}
	for _, w := range []int{0, 20, 80, 200} {
		o := probeOptions(false)
		o.Width = w
		if err := ProbeText(io.Discard, r, o); err != nil {
			t.Fatal(err)
		}
	}
}
