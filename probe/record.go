package probe

import (
	"strconv"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/patience-dev/patience/profile"
)

// Indexes of a shard's series: index i holds profile.SeriesNames()[i].
const (
	iDNS = iota
	iConnect
	iTLS
	iTTFBFresh
	iTTFBReused
	iTotalFresh
	iTotalReused
	iSentFresh
	iSentReused
	iGood
	iLate
	iSilenceFresh
	iSilenceReused
	iSilenceGood
	iFirstEventFresh // the stream series (profile/stream.go)
	iFirstEventReused
	iGapFresh
	iGapReused
	iStreamTotal
	iStreamEvents
	numSeries
)

// record adds v (µs) to series i, allocating the histogram on first use: a run that never
// sees DNS, TLS or a schedule does not pay ~190 KB per unused series and shard.
func (s *shard) record(i int, v int64) {
	if s.hists[i] == nil {
		s.hists[i] = profile.NewHistogram()
	}
	profile.RecordClamped(s.hists[i], v)
}

// shard is one recorder: a full set of series histograms plus counters. Workers record
// into shards without sharing a histogram, and shards are merged once at the end, so memory
// does not grow with run length (fortio's per-thread histograms, merged at the end).
type shard struct {
	mu      sync.Mutex
	hists   [numSeries]*hdrhistogram.Histogram
	status  map[int]int64
	errs    [numErrorClasses]int64
	samples [numErrorClasses]errorSample
	streams profile.StreamCounts
}

// errorSample is the message of the earliest request (index at) that failed with a class.
type errorSample struct {
	msg string
	at  int64
}

func newShard() *shard {
	return &shard{status: map[int]int64{}}
}

// statusKey is the JSON key of a status code.
func statusKey(code int) string { return strconv.Itoa(code) }

// ms converts a duration to float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func ptr(v float64) *float64 { return &v }
