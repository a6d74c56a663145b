package main

import (
	"fmt"
	"sort"

	"github.com/patience-dev/patience/source"
)

// Found is one call site check reported, with whether PT001 was raised at it.
type Found struct {
	Call  source.Call
	PT001 bool
}

// Flag is one site a peer tool flagged (bandit B113), by file and line.
type Flag struct {
	File string
	Line int
}

// Counts are a detector's confusion counts against the labels' "unbounded" truth; labels whose
// truth is "?" are left out of all three.
type Counts struct {
	TP, FP, FN int
}

// Recall is TP / (TP + FN), nil when no labelled site is unbounded.
func (c Counts) Recall() *float64 { return ratio(c.TP, c.TP+c.FN) }

// Precision is TP / (TP + FP), nil when nothing was flagged.
func (c Counts) Precision() *float64 { return ratio(c.TP, c.TP+c.FP) }

func ratio(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	r := float64(n) / float64(d)
	return &r
}

// Score is one language's figures.
type Score struct {
	Language string
	// Labelled are the labels; Found those check reported a call at; Extra the calls check
	// reported in a labelled file that no label names (a labelled file is labelled whole).
	Labelled, Found, Extra int
	// TruthUnknown counts labels whose unbounded is "?", left out of PT001's counts.
	TruthUnknown int
	PT001        Counts
	// Resolved are the found sites whose connect, read and total check resolved (no
	// `unresolved` origin), Right those of them equal to the label on all three; Unresolved
	// the found sites with at least one unresolved bound, UnresolvedKnown those of them whose
	// label states all three (a reader could have resolved them).
	Resolved, Right, Unresolved, UnresolvedKnown int
	// AttemptsKnown are the found sites whose attempts check counted (not 0) and whose label
	// states a number; AttemptsRight those equal.
	AttemptsKnown, AttemptsRight int
	// Peer is bandit B113's counts (Python), nil when it did not run.
	Peer *Counts
	// Details say, one line each, every miss: a site not found, a wrong PT001, a wrong value,
	// an extra call.
	Details []string
}

// match pairs each label with at most one call of its file: a call on the label's first line
// first, then one anywhere in the label's span. It returns the call index per label (-1: not
// found) and the calls no label took.
func match(labels []Label, calls []Found) ([]int, []int) {
	byFile := map[string][]int{}
	for i, c := range calls {
		byFile[c.Call.File] = append(byFile[c.Call.File], i)
	}
	got := make([]int, len(labels))
	used := make([]bool, len(calls))
	for i := range got {
		got[i] = -1
	}
	pass := func(fits func(l Label, line int) bool) {
		for i, l := range labels {
			if got[i] >= 0 {
				continue
			}
			for _, ci := range byFile[l.File] {
				if !used[ci] && fits(l, calls[ci].Call.Line) {
					got[i], used[ci] = ci, true
					break
				}
			}
		}
	}
	pass(func(l Label, line int) bool { return line == l.Line })
	pass(func(l Label, line int) bool { return line >= l.Line && line <= l.End })
	labelled := map[string]bool{}
	for _, l := range labels {
		labelled[l.File] = true
	}
	var extra []int
	for i, c := range calls {
		if !used[i] && labelled[c.Call.File] {
			extra = append(extra, i)
		}
	}
	return got, extra
}

// Compute scores check's calls (and a peer's flags, when peer is not nil) against the labels,
// one Score per language in the order the labels first name them.
func Compute(labels []Label, calls []Found, peer map[string][]Flag) []Score {
	got, extra := match(labels, calls)
	var order []string
	scores := map[string]*Score{}
	fileLang := map[string]string{}
	for _, l := range labels {
		if scores[l.Language] == nil {
			scores[l.Language] = &Score{Language: l.Language}
			order = append(order, l.Language)
		}
		if _, ok := fileLang[l.File]; !ok {
			fileLang[l.File] = l.Language
		}
	}
	for i, l := range labels {
		s := scores[l.Language]
		var f *Found
		if got[i] >= 0 {
			f = &calls[got[i]]
		}
		s.add(l, f)
	}
	for _, ci := range extra {
		c := calls[ci]
		s := scores[fileLang[c.Call.File]]
		s.Extra++
		s.Details = append(s.Details, fmt.Sprintf("extra call  %s:%d %s (no label)", c.Call.File, c.Call.Line, c.Call.Library))
		if c.PT001 {
			s.PT001.FP++
			s.Details = append(s.Details, fmt.Sprintf("false PT001 %s:%d (no label)", c.Call.File, c.Call.Line))
		}
	}
	for lang, flags := range peer {
		if s := scores[lang]; s != nil {
			c := peerCounts(labels, lang, flags, s)
			s.Peer = &c
		}
	}
	out := make([]Score, 0, len(order))
	for _, lang := range order {
		sort.Strings(scores[lang].Details)
		out = append(out, *scores[lang])
	}
	return out
}

// add scores one label against the call found for it (nil: none).
func (s *Score) add(l Label, f *Found) {
	s.Labelled++
	where := fmt.Sprintf("%s:%d", l.File, l.Line)
	flagged := f != nil && f.PT001
	s.judge(&s.PT001, l, flagged, "PT001", where)
	if f == nil {
		s.Details = append(s.Details, fmt.Sprintf("not found   %s %s (%s)", where, l.Library, l.Note))
		return
	}
	s.Found++
	c := f.Call
	bounds := []struct {
		label  Value
		ms     *int64
		origin source.Origin
	}{{l.Connect, c.Timeouts.ConnectMS, c.Origin.Connect}, {l.Read, c.Timeouts.ReadMS, c.Origin.Read}, {l.Total, c.Timeouts.TotalMS, c.Origin.Total}}
	resolved, right := true, true
	for _, b := range bounds {
		if b.origin == source.OriginUnresolved {
			resolved = false
			continue
		}
		right = right && equal(b.label, b.ms)
	}
	switch {
	case !resolved:
		s.Unresolved++
		if l.Connect.Kind != KindUnknown && l.Read.Kind != KindUnknown && l.Total.Kind != KindUnknown {
			s.UnresolvedKnown++
		}
	case right:
		s.Resolved++
		s.Right++
	default:
		s.Resolved++
		s.Details = append(s.Details, fmt.Sprintf("wrong value %s want %s/%s/%s got %s/%s/%s (%s)", where,
			l.Connect, l.Read, l.Total, show(c.Timeouts.ConnectMS), show(c.Timeouts.ReadMS), show(c.Timeouts.TotalMS), l.Note))
	}
	if n := c.Attempts(); n > 0 && l.Attempts.Kind == KindNumber {
		s.AttemptsKnown++
		if int64(n) == l.Attempts.N {
			s.AttemptsRight++
		} else {
			s.Details = append(s.Details, fmt.Sprintf("attempts    %s want %d got %d", where, l.Attempts.N, n))
		}
	}
}

// judge counts one flagged-or-not decision against the label's truth.
func (s *Score) judge(c *Counts, l Label, flagged bool, tool, where string) {
	switch {
	case l.Unbounded == TruthUnknown:
		if tool == "PT001" {
			s.TruthUnknown++
		}
	case l.Unbounded == TruthYes && flagged:
		c.TP++
	case l.Unbounded == TruthYes:
		c.FN++
		s.Details = append(s.Details, fmt.Sprintf("missed %s  %s %s (%s)", tool, where, l.Library, l.Note))
	case flagged:
		c.FP++
		s.Details = append(s.Details, fmt.Sprintf("false %s   %s %s (%s)", tool, where, l.Library, l.Note))
	}
}

// peerCounts scores a peer's flags on one language's labels: a flag matches a label whose span
// holds its line; a flag in a labelled file that matches none is a false positive.
func peerCounts(labels []Label, lang string, flags []Flag, s *Score) Counts {
	var c Counts
	hit := make([]bool, len(flags))
	files := map[string]bool{}
	for _, l := range labels {
		if l.Language != lang {
			continue
		}
		files[l.File] = true
		flagged := false
		for i, f := range flags {
			if !hit[i] && f.File == l.File && f.Line >= l.Line && f.Line <= l.End {
				hit[i], flagged = true, true
				break
			}
		}
		s.judge(&c, l, flagged, "B113", fmt.Sprintf("%s:%d", l.File, l.Line))
	}
	for i, f := range flags {
		if !hit[i] && files[f.File] {
			c.FP++
			s.Details = append(s.Details, fmt.Sprintf("false B113  %s:%d (no label)", f.File, f.Line))
		}
	}
	return c
}

// equal says whether a resolved bound (nil: no bound) is the labelled one; a label "?" says the
// value is not statically known, so no resolved value equals it.
func equal(v Value, ms *int64) bool {
	switch v.Kind {
	case KindNone:
		return ms == nil
	case KindNumber:
		return ms != nil && *ms == v.N
	}
	return false
}

func show(ms *int64) string {
	if ms == nil {
		return "-"
	}
	return fmt.Sprint(*ms)
}
