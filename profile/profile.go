package profile

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/patience-dev/patience/internal/atomicfile"
	"github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/internal/units"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Save writes r as an indented JSON profile (the same document as `-o json`, histograms
// included) to path, atomically (internal/atomicfile): into a temporary file beside it, then
// renamed over it, so an interrupted or failing save never leaves half a profile where a good
// one was; a symbolic link at path is refused, never written through.
func Save(path string, r *Profile) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}

// CheckSavePath reports whether a profile can be saved at path, before a run measures or
// reads anything: path is not a symbolic link or a directory, and its directory exists and
// takes a new file (atomicfile.Check creates and removes one there, as Save will).
func CheckSavePath(path string) error {
	return atomicfile.Check(path)
}

// Answered counts the requests that got an answer: the HTTP responses, and the streams that
// sent their first event and were still streaming when the probe stopped waiting (counted
// in errors.timeout, the probe having cut them, but answered: docs/design.md §7 "Streams").
func (r *Profile) Answered() int64 {
	if r.Streams == nil {
		return r.Responses
	}
	return r.Responses + r.Streams.Streaming
}

// NoGoodResponse reports whether r holds no good response (status below 400) to derive a
// timeout from — the target was unreachable, every request failed, or every response was an
// error: the runs that exit 3 for want of a measurement. --save keeps an existing profile
// rather than replace it with such a run, unless --force.
func (r *Profile) NoGoodResponse() bool {
	v := r.Recommendation.Verdict
	return r.Unreachable || r.Answered() == 0 ||
		v.Has(CodeUnreachable) || v.Has(CodeAllFailed) || v.Has(CodeNoGoodResponse)
}

// Load reads a profile written by `patience probe --save`. Errors name the file and,
// for malformed JSON, the line and column. A file larger than input.MaxProfile is refused
// before it is read whole.
func Load(path string) (*Profile, error) {
	b, err := input.ReadFile(path, input.MaxProfile, nil)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Read is Load for a profile on a stream (standard input); name labels errors.
func Read(name string, r io.Reader) (*Profile, error) {
	b, err := input.Read(r, name, input.MaxProfile)
	if err != nil {
		return nil, err
	}
	return Parse(name, b)
}

// Parse decodes a profile document; name is used in error messages.
func Parse(name string, b []byte) (*Profile, error) {
	var r Profile
	if err := json.Unmarshal(b, &r); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			// Offset counts the bytes read, the offending one included.
			line, col := lineCol(b, syn.Offset-1)
			return nil, fmt.Errorf("%s:%d:%d: %v", name, line, col, syn)
		case errors.As(err, &typ):
			line, col := lineCol(b, typ.Offset)
			return nil, fmt.Errorf("%s:%d:%d: field %s: want %s, got %s", name, line, col, typ.Field, typ.Type, typ.Value)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("%s: field schema: want %q, got %q", name, Schema, r.Schema)
	}
	if r.Histogram == "" {
		return nil, fmt.Errorf("%s: field histogram: missing (save the profile with patience probe --save)", name)
	}
	if len(r.Histograms) > maxProfileSeries {
		return nil, fmt.Errorf("%s: field histograms: %d series, at most %d", name, len(r.Histograms), maxProfileSeries)
	}
	if err := checkProfileHistogram(r.Histogram); err != nil {
		return nil, fmt.Errorf("%s: field histogram: %v", name, err)
	}
	for k, v := range r.Histograms {
		if err := checkProfileHistogram(v); err != nil {
			return nil, fmt.Errorf("%s: field histograms.%s: %v", name, k, err)
		}
	}
	if err := checkCounters(name, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Bounds on what a profile's histograms may hold. Probe records 1 µs to 1 h at 3 significant
// digits; a histogram decoded at 5 digits over the whole int64 range costs 47 MB before its
// first count (a 7 KB profile cost 430–690 MB), and values past 2^63 ns overflow durations
// (the simulator drew negative latencies and `replay --live` reported 100% success).
const (
	maxProfileSeries  = 64
	maxProfileSigFigs = HistogramDigits
	// MaxProfileValueUs is the longest latency a profile may hold: one day, in µs.
	MaxProfileValueUs = 24 * 3600 * 1_000_000
	// maxProfileCount keeps every count, and the sums of many merged profiles, far from
	// int64 overflow and exact in float64.
	maxProfileCount = 1 << 53
)

// checkProfileHistogram decodes one histogram of a profile after reading its header, and
// refuses a geometry, a value or a count a probe cannot have recorded.
func checkProfileHistogram(enc string) error {
	if digits, ok := histogramDigits(enc); ok && (digits < 1 || digits > maxProfileSigFigs) {
		return fmt.Errorf("%d significant digits, want 1 to %d (as patience probe --save writes)", digits, maxProfileSigFigs)
	}
	// A header that does not read is left to the decoder, whose error says why.
	h, err := DecodeHistogram(enc)
	if err != nil {
		return err
	}
	// The decoder's total wraps around on crafted counts; add them up with a bound instead.
	var total int64
	for _, c := range h.Export().Counts {
		if c < 0 || c > maxProfileCount-total {
			return errors.New("more than 2^53 samples")
		}
		total += c
	}
	if h.TotalCount() > 0 && h.Max() > MaxProfileValueUs {
		return fmt.Errorf("a latency of %s: longer than the 24 h a profile may hold", units.Millis(float64(h.Max())/1000))
	}
	return nil
}

// histogramDigits reads the significant digits from the header of an encoded histogram
// without inflating its counts: EncodeHistogram's base64 of hdrhistogram's own base64 of
// the V2 compressed form (cookie and length, then a zlib stream opening with a 40-byte
// header whose bytes 12–15 are the digits). Only a prefix is decoded.
func histogramDigits(enc string) (int32, bool) {
	prefix := func(s string, n int) string {
		s = s[:min(len(s), n)]
		return s[:len(s)/4*4]
	}
	inner, err := base64.StdEncoding.DecodeString(prefix(enc, 8192))
	if err != nil {
		return 0, false
	}
	raw, err := base64.StdEncoding.DecodeString(prefix(string(inner), len(inner)))
	if err != nil || len(raw) < 8 {
		return 0, false
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	if err != nil {
		return 0, false
	}
	var head [16]byte
	if _, err := io.ReadFull(z, head[:]); err != nil {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(head[12:16])), true
}

// lineCol converts a byte offset into 1-based line and column.
func lineCol(b []byte, off int64) (int, int) {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	if off < 0 {
		off = 0
	}
	before := b[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// TotalHistogram decodes the total-latency histogram (values in microseconds). Scenario
// replay samples it by inverse CDF; `check` reads quantiles from it.
func (r *Profile) TotalHistogram() (*hdrhistogram.Histogram, error) {
	if r.Histogram == "" {
		return nil, errors.New("profile has no histogram")
	}
	return DecodeHistogram(r.Histogram)
}

// Merge combines saved profiles by merging their histograms and adding their counters — never
// by averaging percentiles (docs/design.md §9). Rates add up: the runs are taken to be concurrent,
// as in a CI matrix or an Indexed Job probing from several places at once.
func Merge(profiles []*Profile, p RecommendParams) (*Profile, error) {
	if len(profiles) == 0 {
		return nil, errors.New("nothing to merge")
	}
	// Totals first, over every profile, as before the merger: a bad count is named before
	// a profile without histograms.
	if err := checkMergeTotals(profiles); err != nil {
		return nil, err
	}
	g := NewMerger(p)
	for _, r := range profiles {
		if err := g.Add(r); err != nil {
			return nil, err
		}
	}
	return g.Result()
}
