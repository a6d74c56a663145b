package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Save writes r as an indented JSON profile (the same document as `-o json`, histograms
// included) to path.
func Save(path string, r *Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// LoadProfile reads a profile written by `patience probe --save`. Errors name the file and,
// for malformed JSON, the line and column.
func LoadProfile(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseProfile(path, b)
}

// ParseProfile decodes a profile document; name is used in error messages.
func ParseProfile(name string, b []byte) (*Result, error) {
	var r Result
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
	if _, err := DecodeHistogram(r.Histogram); err != nil {
		return nil, fmt.Errorf("%s: field histogram: %v", name, err)
	}
	for k, v := range r.Histograms {
		if _, err := DecodeHistogram(v); err != nil {
			return nil, fmt.Errorf("%s: field histograms.%s: %v", name, k, err)
		}
	}
	return &r, nil
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
func (r *Result) TotalHistogram() (*hdrhistogram.Histogram, error) {
	if r.Histogram == "" {
		return nil, errors.New("profile has no histogram")
	}
	return DecodeHistogram(r.Histogram)
}

// Merge combines saved profiles by merging their histograms and adding their counters — never
// by averaging percentiles (DESIGN §9). Rates add up: the runs are taken to be concurrent,
// as in a CI matrix or an Indexed Job probing from several places at once.
func Merge(profiles []*Result, p AdviceParams) (*Result, error) {
	if len(profiles) == 0 {
		return nil, errors.New("nothing to merge")
	}
	m := &measurement{hists: histSet{}, status: map[string]int64{}, errors: map[string]int64{}, samples: map[string]ErrorSample{}}
	meta := Result{Target: profiles[0].Target, Model: profiles[0].Model, Conn: profiles[0].Conn, Merged: len(profiles)}
	var requested float64
	allOpen, held := true, true
	for i, r := range profiles {
		if len(r.Histograms) == 0 {
			return nil, fmt.Errorf("profile %d has no per-phase histograms (save it with patience probe --save)", i+1)
		}
		set := histSet{}
		for _, name := range series {
			enc, ok := r.Histograms[name]
			if !ok {
				continue
			}
			h, err := DecodeHistogram(enc)
			if err != nil {
				return nil, fmt.Errorf("profile %d: histograms.%s: %v", i+1, name, err)
			}
			set[name] = h
		}
		m.hists.merge(set)
		for k, v := range r.Status {
			m.status[k] += v
		}
		for k, v := range r.Errors {
			m.errors[k] += v
		}
		for k, v := range r.ErrorSamples {
			if _, ok := m.samples[k]; !ok {
				m.samples[k] = v
			}
		}
		// A request unanswered by the longest bound was unanswered by every shorter one.
		m.maxTimeout = max(m.maxTimeout, msDuration(r.MaxTimeoutMs))
		m.requests += r.Requests
		m.responses += r.Responses
		m.durationMs = max(m.durationMs, r.DurationMs)
		s := r.Schedule
		if s.RequestedPerS == nil {
			allOpen = false
		} else {
			requested += *s.RequestedPerS
		}
		held = held && s.RateHeld
		m.schedule.AchievedPerS += s.AchievedPerS
		m.schedule.Late += s.Late
		m.schedule.LateAfterMs = s.LateAfterMs
		m.schedule.WaitedForSlot += s.WaitedForSlot
		m.schedule.Dropped += s.Dropped
		m.schedule.Resent += s.Resent
		m.schedule.MaxInFlight += s.MaxInFlight
		m.schedule.PeakInFlight += s.PeakInFlight
		meta.Interrupted = meta.Interrupted || r.Interrupted
		meta.Concurrency += r.Concurrency
		if r.Target.URL != meta.Target.URL || r.Target.Method != meta.Target.Method {
			meta.Target = Target{URL: "(several targets)", Method: meta.Target.Method}
		}
		if r.Model != meta.Model {
			meta.Model = "mixed"
		}
		if r.Conn != meta.Conn {
			meta.Conn = "mixed"
		}
	}
	if allOpen {
		m.schedule.RequestedPerS = ptr(requested)
	}
	if m.maxTimeout <= 0 {
		m.maxTimeout = p.MaxTimeout
	}
	m.schedule.RateHeld = held
	return build(m, meta, p)
}
