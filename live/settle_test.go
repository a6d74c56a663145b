package live

import (
	"errors"
	"testing"
)

// TestSettledStats: the counters are read once the server has handled what was sent —
// nothing in flight or queued and the request count steady over one interval.
func TestSettledStats(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name    string
		reads   []Stats
		failAt  int // read index that fails (-1: none)
		want    int64
		wantErr bool
	}{
		{"steady at once", []Stats{{Requests: 5, DuplicateSideEffects: 2}, {Requests: 5, DuplicateSideEffects: 2}}, -1, 2, false},
		{"a late request lands", []Stats{{Requests: 5, InFlight: 1, DuplicateSideEffects: 2}, {Requests: 6, DuplicateSideEffects: 3}, {Requests: 6, DuplicateSideEffects: 3}}, -1, 3, false},
		{"queued then handled", []Stats{{Requests: 5, Queue: 1}, {Requests: 5, Queue: 1}, {Requests: 6, DuplicateSideEffects: 1}, {Requests: 6, DuplicateSideEffects: 1}}, -1, 1, false},
		{"first read fails", []Stats{{}}, 0, 0, true},
		{"a later read fails", []Stats{{Requests: 5, InFlight: 1, DuplicateSideEffects: 4}, {}}, 1, 4, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := 0
			st, err := settledStats(func() (*Stats, error) {
				defer func() { i++ }()
				if i == tc.failAt {
					return nil, boom
				}
				s := tc.reads[min(i, len(tc.reads)-1)]
				return &s, nil
			})
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			if err == nil && st.DuplicateSideEffects != tc.want {
				t.Errorf("duplicates %d after %d reads, want %d", st.DuplicateSideEffects, i, tc.want)
			}
		})
	}
}
