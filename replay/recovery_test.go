package replay

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// msp is a recovery of s seconds as RecoveryMs.
func msp(s float64) *float64 { v := s * 1000; return &v }

// timeline builds a goodput series from runs of (seconds, value).
func timeline(runs ...[2]float64) []float64 {
	var out []float64
	for _, r := range runs {
		for i := 0; i < int(r[0]); i++ {
			out = append(out, r[1])
		}
	}
	return out
}

func TestMovingAverages(t *testing.T) {
	got := MovingAverages([]float64{5, 10, 15, 20, 25, 30, 0}, 5)
	want := []float64{5, 7.5, 10, 12.5, 15, 20, 18}
	if !cmp.Equal(got, want) {
		t.Errorf("MovingAverages = %v, want %v", got, want)
	}
}

func TestJudge(t *testing.T) {
	s := time.Second
	tests := []struct {
		name        string
		goodput     []float64
		rate        float64
		faultEnd    time.Duration
		arrivalsEnd time.Duration
		want        Recovery
	}{
		{
			// Goodput never suffered: the window starts the second the fault ends.
			name: "unharmed", goodput: timeline([2]float64{120, 100}), rate: 100,
			faultEnd: 40 * s, arrivalsEnd: 120 * s,
			want: Recovery{Judged: true, Recovered: true, RecoveryMs: msp(0)},
		},
		{
			// Zero until t=50, then steady: the 5 s average reaches 90 (within 10%) at t=54
			// (four good seconds of five = 80 is not enough; five of five = 100 is).
			name: "recovers 14s after", goodput: timeline([2]float64{50, 0}, [2]float64{70, 100}), rate: 100,
			faultEnd: 40 * s, arrivalsEnd: 120 * s,
			want: Recovery{Judged: true, Recovered: true, RecoveryMs: msp(14)},
		},
		{
			// Exactly 10% low is still within tolerance.
			name: "at the tolerance", goodput: timeline([2]float64{40, 0}, [2]float64{80, 90}), rate: 100,
			faultEnd: 40 * s, arrivalsEnd: 120 * s,
			want: Recovery{Judged: true, Recovered: true, RecoveryMs: msp(4)},
		},
		{
			name: "just outside the tolerance", goodput: timeline([2]float64{40, 0}, [2]float64{80, 89}), rate: 100,
			faultEnd: 40 * s, arrivalsEnd: 120 * s,
			want: Recovery{Judged: true, Metastable: true},
		},
		{
			// Too much goodput (a backlog answered at once) is not yet the steady state: the
			// average at t=63 is (200+4·100)/5 = 120, at t=64 100.
			name: "overshoot", goodput: timeline([2]float64{40, 0}, [2]float64{20, 200}, [2]float64{60, 100}), rate: 100,
			faultEnd: 40 * s, arrivalsEnd: 120 * s,
			want: Recovery{Judged: true, Recovered: true, RecoveryMs: msp(24)},
		},
		{
			// Twice the arrivals to the end: late retries completing, not a collapse.
			name: "backlog still completing", goodput: timeline([2]float64{50, 0}, [2]float64{70, 200}), rate: 100,
			faultEnd: 40 * s, arrivalsEnd: 120 * s,
			want: Recovery{Judged: true, Backlog: true},
		},
		{
			name: "collapsed for good", goodput: timeline([2]float64{40, 100}, [2]float64{80, 3}), rate: 100,
			faultEnd: 50 * s, arrivalsEnd: 120 * s,
			want: Recovery{Judged: true, Metastable: true},
		},
		{
			// 29 good seconds then a dip: not 30 in a row (and the streak at the end, 78…81
			// good from t=82, is 4 s: too short to call it recovering).
			name: "window broken by a dip", goodput: timeline([2]float64{40, 0}, [2]float64{33, 100}, [2]float64{5, 0}, [2]float64{8, 100}), rate: 100,
			faultEnd: 40 * s, arrivalsEnd: 86 * s,
			want: Recovery{Judged: true, Metastable: true},
		},
		{
			// Seconds after the end of arrivals do not count: goodput there falls because
			// nothing arrives.
			// Good from t=64 (the average settles), but arrivals end at 89: a 25 s good streak
			// is cut off — recovering, not metastable, and not yet recovered.
			name: "window must end before arrivals stop", goodput: timeline([2]float64{60, 0}, [2]float64{70, 100}), rate: 100,
			faultEnd: 55 * s, arrivalsEnd: 89 * s,
			want: Recovery{RecoveringS: 25},
		},
		{
			name: "run too short to judge", goodput: timeline([2]float64{70, 100}), rate: 100,
			faultEnd: 50 * s, arrivalsEnd: 70 * s,
			want: Recovery{},
		},
		{
			// A fault ending mid-second: the window starts at the next whole second.
			name: "fractional fault end", goodput: timeline([2]float64{100, 100}), rate: 100,
			faultEnd: 40500 * time.Millisecond, arrivalsEnd: 100 * s,
			want: Recovery{Judged: true, Recovered: true, RecoveryMs: msp(0.5)},
		},
		{
			// At 1 request/s a success that slips past a second boundary moves the 5 s
			// average by 0.2/s (20%): within the one-request slack.
			name: "one request slips a second", goodput: timeline([2]float64{45, 1}, [2]float64{1, 0}, [2]float64{1, 2}, [2]float64{40, 1}), rate: 1,
			faultEnd: 40 * s, arrivalsEnd: 87 * s,
			want: Recovery{Judged: true, Recovered: true, RecoveryMs: msp(0)},
		},
		{
			// Two slips in one window are 40% (at t=46): beyond the slack; 20…45 is 26 good
			// seconds, 47…50 four.
			name: "two requests missing", goodput: timeline([2]float64{45, 1}, [2]float64{2, 0}, [2]float64{2, 2}, [2]float64{40, 1}), rate: 1,
			faultEnd: 20 * s, arrivalsEnd: 51 * s,
			want: Recovery{Judged: true, Metastable: true},
		},
		{
			name: "no faults", goodput: timeline([2]float64{40, 100}), rate: 100,
			faultEnd: 0, arrivalsEnd: 40 * s,
			want: Recovery{Judged: true, Recovered: true, RecoveryMs: msp(0)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arrivals := make([]float64, len(tt.goodput))
			for i := range arrivals {
				arrivals[i] = tt.rate
			}
			got := Judge(tt.goodput, arrivals, tt.faultEnd, tt.arrivalsEnd)
			if !cmp.Equal(got, tt.want) {
				t.Errorf("Judge = %+v, want %+v", got, tt.want)
			}
		})
	}
}
