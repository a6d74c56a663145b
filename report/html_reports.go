package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/demo"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/live"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/storm"
)

// ProbeHTML renders a probe as one self-contained HTML page: the verdict, the
// recommendation, the latency histogram and the cut-off curve, then the tables.
func ProbeHTML(w io.Writer, r *profile.Profile, _ Options) error {
	lead, blocks, err := probeHTMLParts(r)
	if err != nil {
		return err
	}
	return writeHTML(w, htmlDoc{Title: "patience probe · " + r.Target.URL, Subtitle: probeHTMLSubtitle(r),
		Lead: lead, Sections: []htmlSection{{Blocks: blocks}}})
}

// probeHTMLSubtitle is how the probe ran (or where its data came from) and, for a live run,
// the protocol and connections line.
func probeHTMLSubtitle(r *profile.Profile) []string {
	sub := []string{probeSetup(r)}
	if l := probeConnLine(r); l != "" {
		sub = append(sub, l)
	}
	return sub
}

func probeHTMLParts(r *profile.Profile) ([]htmlVerdict, []htmlBlock, error) {
	lead := []htmlVerdict{probeVerdictHTML(r.Recommendation.Verdict)}
	var blocks []htmlBlock
	if len(r.Notes) > 0 {
		blocks = append(blocks, list("notes", r.Notes))
	}
	if len(r.Target.Headers) > 0 {
		blocks = append(blocks, list("derivation", r.Target.Headers))
	}
	rec := r.Recommendation
	blocks = append(blocks, htmlBlock{Heading: "Recommendation"})
	if rec.TimeoutMs > 0 {
		kv := []htmlKV{
			{Key: "timeout", Value: units.Millis(rec.TimeoutMs)},
			{Key: "connect timeout", Value: probeConnect(rec)},
			{Key: "attempts", Value: strconv.Itoa(rec.MaxAttempts), Note: strings.TrimSpace(probeAttempts(rec))},
			{Key: "budget", Value: probeBudget(rec)},
		}
		if rec.ReadTimeoutMs != nil {
			kv = slices.Insert(kv, 2, htmlKV{Key: "read timeout", Value: units.Millis(*rec.ReadTimeoutMs)})
		}
		if rec.Backoff != "" {
			kv = append(kv, htmlKV{Key: "backoff", Value: rec.Backoff})
		}
		if rec.Job != nil {
			for _, row := range probeJobRows(rec.Job) {
				kv = append(kv, htmlKV{Key: "queue " + row[0], Value: row[1]})
			}
		}
		for _, row := range probeRetryBudgetRows(rec.RetryBudget) {
			key := row[0]
			if key != "retry budget" {
				key = "retry budget " + key
			}
			kv = append(kv, htmlKV{Key: key, Value: row[1]})
		}
		blocks = append(blocks, htmlBlock{KV: kv})
	}
	if rows := probeStreamRows(&rec); rows != nil {
		var kv []htmlKV
		for _, row := range rows[1:] {
			kv = append(kv, htmlKV{Key: "stream " + strings.TrimPrefix(row[0], "stream "), Value: row[1]})
		}
		blocks = append(blocks, htmlBlock{KV: kv})
	}
	if d := probeDerivation(rec); len(d) > 0 {
		blocks = append(blocks, list("derivation", d))
	}
	for _, chart := range []func(*profile.Profile) (*htmlChart, error){probeHistogramChart, probeCutoffChart} {
		c, err := chart(r)
		if err != nil {
			return nil, nil, err
		}
		if c != nil {
			blocks = append(blocks, htmlBlock{Chart: c})
		}
	}
	if len(r.CutoffCurve) > 0 && r.CutoffCurve[0].Samples > 0 {
		var rows [][]string
		for _, c := range r.CutoffCurve {
			v, ok := probeCutoffValue(r, c)
			switch {
			case !ok:
				rows = append(rows, []string{c.Label, "n/a (n=" + units.Count(int(c.Samples)) + ")", ""})
			case c.CutRate == nil:
				rows = append(rows, []string{c.Label, v, "beyond --max-timeout"})
			default:
				rows = append(rows, []string{c.Label, v, probePercent(*c.CutRate)})
			}
		}
		blocks = append(blocks, htmlBlock{Table: textTable("Cut-off curve: "+probeCutoffTitle, []string{"timeout at", "value", "cut off"}, rows, func(int) bool { return true })})
	}
	if rows := probePhaseRows(r); len(rows) > 0 {
		var cells [][]string
		for _, pr := range rows {
			cells = append(cells, append([]string{pr.phase, pr.conn}, probePhaseCells(pr.s)...))
		}
		caption := "total = from the intended send (coordinated omission corrected) · sent = from the actual send" + probeStreamCaption(r)
		if r.Source != nil {
			caption = "as the source recorded them"
		}
		blocks = append(blocks, htmlBlock{Heading: "Latency by phase (ms)"},
			htmlBlock{Table: textTable(caption, probePhaseHeaders, cells, func(col int) bool { return col >= 2 })})
	}
	kv := []htmlKV{{Key: "responses", Value: probeStatusLine(r.Status)}, {Key: "errors", Value: probeErrorLine(r.Errors)}}
	if items := probeStreamItems(r.Streams, unitFigures); items != nil {
		kv = append(kv, htmlKV{Key: "streams", Value: strings.Join(items, " · ")})
	}
	if r.Source != nil {
		kv = append(kv, htmlKV{Key: "source", Value: probeSourceDetail(r.Source)})
	} else {
		kv = append(kv, htmlKV{Key: "schedule", Value: probeScheduleLine(r)})
	}
	blocks = append(blocks, htmlBlock{Heading: "Responses"}, htmlBlock{KV: kv})
	if samples := probeErrorSamples(r); len(samples) > 0 {
		blocks = append(blocks, list("derivation", samples))
	}
	if r.Source != nil && len(r.Source.MalformedSample) > 0 {
		blocks = append(blocks, list("derivation", r.Source.MalformedSample))
	}
	return lead, append(blocks, emitHTMLBlocks(r.Emit)...), nil
}

// ReplayHTML renders a replay as one self-contained HTML page: a verdict per policy, the
// policies side by side, and per-second charts of every policy on one time axis.
func ReplayHTML(w io.Writer, r *replay.Result, _ Options) error {
	lead, blocks, err := replayHTMLParts(r, "replay")
	if err != nil {
		return err
	}
	return writeHTML(w, htmlDoc{Title: "patience replay · " + r.Scenario, Subtitle: replaySubtitleParts(r), Description: r.Description,
		Lead: lead, Sections: []htmlSection{{Blocks: blocks}}})
}

func replayHTMLParts(r *replay.Result, id string) ([]htmlVerdict, []htmlBlock, error) {
	var lead []htmlVerdict
	for _, p := range r.Policies {
		lead = append(lead, replayVerdictHTML(p.Name, p.Verdict))
	}
	var blocks []htmlBlock
	if text := lessonText(r.Lesson); text != "" {
		blocks = append(blocks, para("lesson", text))
	}
	headers := []string{""}
	for _, p := range r.Policies {
		headers = append(headers, p.Name)
	}
	var rows [][]string
	for _, row := range replayRowsOf(r) {
		cells := []string{strings.TrimSpace(row.label)}
		for _, p := range r.Policies {
			cells = append(cells, row.value(p))
		}
		rows = append(rows, cells)
	}
	blocks = append(blocks, htmlBlock{Table: textTable("", headers, rows, func(int) bool { return true })})
	if note := amplificationNote(r.Policies); note != "" {
		blocks = append(blocks, para("muted", note))
	}
	ps := make([]policyTimeline, len(r.Policies))
	finished := 0.0
	for i, p := range r.Policies {
		ps[i] = policyTimeline{p.Name, p.Timeline}
		finished = max(finished, p.FinishedMs)
	}
	faults, recovered := replayFaults(r)
	charts, _, err := timelineCharts(id, ps, faults, recovered, []timelineFigure{
		{id: "goodput", title: "Succeeded per second, every policy", unit: "requests/s", value: func(s replay.Second) int { return s.Succeeded }},
		{id: "failed", title: "Failed per second, every policy", unit: "requests/s", value: func(s replay.Second) int { return s.Failed }},
		{id: "attempts", title: "Attempts at the dependency per second, every policy", unit: "attempts/s", value: func(s replay.Second) int { return s.Attempts }},
	})
	if err != nil {
		return nil, nil, err
	}
	if len(charts) == 0 && len(r.Policies) > 0 {
		blocks = append(blocks, para("muted", "every request finished within "+replayDuration(finished)+": too short for a per-second chart"))
	}
	for i := range charts {
		blocks = append(blocks, htmlBlock{Chart: &charts[i]})
	}
	if r.Interrupted {
		blocks = append(blocks, para("warn", "interrupted: only the policies above were replayed"))
	}
	return lead, blocks, nil
}

// StormHTML renders a storm as one self-contained HTML page: the verdicts, the offered load
// of every policy against the capacity, goodput and the queue, and the policy table.
func StormHTML(w io.Writer, r *storm.Result, _ Options) error {
	var lead []htmlVerdict
	for _, p := range r.Policies {
		lead = append(lead, replayVerdictHTML(p.Name, p.Verdict))
	}
	if len(r.Policies) == 0 {
		lead = append(lead, replayVerdictHTML(r.Policy, r.Verdict))
	}
	var blocks []htmlBlock
	if line := stormStable(r.Analysis); line != "" {
		blocks = append(blocks, para("", line))
	}
	if r.FluidNote != "" {
		blocks = append(blocks, para("muted", r.FluidNote))
	}
	ps := make([]policyTimeline, len(r.Policies))
	for i, p := range r.Policies {
		ps[i] = policyTimeline{p.Name, p.Timeline}
	}
	faults, recovered := stormFaults(r)
	offered := timelineFigure{id: "offered", title: "Offered load against capacity: attempts started at the dependency per second, every policy",
		unit: "attempts/s", value: func(s replay.Second) int { return s.Attempts }}
	if finite(r.CapacityPerS) {
		offered.extra = []constantLine{{name: "capacity " + stormRate(*r.CapacityPerS), value: *r.CapacityPerS}}
	}
	charts, _, err := timelineCharts("storm", ps, faults, recovered, []timelineFigure{offered,
		{id: "goodput", title: "Goodput: requests succeeded per second, every policy", unit: "requests/s", value: func(s replay.Second) int { return s.Succeeded }},
		{id: "queue", title: "Queue at the dependency: the longest it was in each second, every policy", unit: "requests", value: func(s replay.Second) int { return s.QueueLength }},
	})
	if err != nil {
		return err
	}
	for i := range charts {
		blocks = append(blocks, htmlBlock{Chart: &charts[i]})
	}
	blocks = append(blocks, htmlBlock{Table: textTable("", stormHeaders, stormRows(r), stormNumeric)})
	for _, line := range strings.Split(stormFootnote(r), "\n") {
		blocks = append(blocks, para("muted", line))
	}
	if r.Interrupted {
		blocks = append(blocks, para("warn", "interrupted: only the policies above were simulated"))
	}
	return writeHTML(w, htmlDoc{Title: "patience storm · " + r.Scenario, Subtitle: stormSubtitleParts(r), Description: r.Description,
		Lead: lead, Sections: []htmlSection{{Blocks: blocks}}})
}

// checkMark is a finding's mark: ✗ for an error, ~ for a warning.
func checkMark(l check.Severity) string {
	if l == check.SeverityError {
		return "✗"
	}
	return "~"
}

// CheckHTML renders a check result as one self-contained HTML page: passed or failed (the
// result's own Passed), the findings with where they are and their fix, and what was checked.
func CheckHTML(w io.Writer, r *check.Result, _ Options) error {
	doc := htmlDoc{Title: "patience check"}
	if e := r.Error; e != nil {
		doc.Lead = []htmlVerdict{{Level: "bad", Mark: "✗", Text: "check could not run: " + e.Location() + ": " + inputMessage(e)}}
		// Nothing checked: the files read and why each was left are the explanation.
		if sk := checkSkippedHTML(r); len(sk) > 0 {
			doc.Sections = []htmlSection{{Blocks: sk}}
		}
		return writeHTML(w, doc)
	}
	mark, word, counts := checkVerdict(r)
	level := string(r.Level)
	doc.Subtitle = []string{checkScope(r), "fail on " + string(r.FailOn), plural(len(r.Rules), "rule")}
	v := htmlVerdict{Level: level, Mark: mark, Text: "check " + word + ": " + counts}
	for _, f := range r.Findings {
		v.Reasons = append(v.Reasons, htmlReason{Level: string(f.Level), Mark: checkMark(f.Level), Text: f.Rule + " " + f.Dependency + ": " + f.Title})
	}
	doc.Lead = []htmlVerdict{v}
	var blocks []htmlBlock
	if note := notReplayedText(r); note != "" {
		blocks = append(blocks, para("warn", note))
	}
	if r.NothingChecked {
		blocks = append(blocks, para("warn", r.NothingCheckedReason))
	}
	if r.Summary.Suppressed > 0 {
		blocks = append(blocks, para("muted", plural(r.Summary.Suppressed, "finding")+" suppressed by # patience:ignore"))
	}
	if len(r.Findings) == 0 {
		blocks = append(blocks, para("", "No findings: every rule passed."))
	} else {
		t := &htmlTable{Headers: []string{"level", "rule", "dependency", "where", "what will happen", "fix"}}
		for _, f := range r.Findings {
			t.Rows = append(t.Rows, []htmlCell{
				{Text: string(f.Level), Mark: checkMark(f.Level), Class: "lvl-" + string(f.Level)},
				{Text: f.Rule + " · " + f.Title}, {Text: f.Dependency}, {Text: location(f)}, {Text: f.Message}, {Text: f.Fix},
			})
		}
		blocks = append(blocks, htmlBlock{Heading: "Findings"}, htmlBlock{Table: t})
	}
	blocks = append(blocks, checkCallsHTML(r)...)
	if len(r.Checked) > 0 {
		var rows [][]string
		for _, c := range r.Checked {
			skipped := make([]string, 0, len(c.Skipped))
			for rule, why := range c.Skipped {
				skipped = append(skipped, rule+": "+why)
			}
			sort.Strings(skipped)
			where := c.File
			if c.Line > 0 {
				where += ":" + strconv.Itoa(c.Line)
			}
			rows = append(rows, []string{c.Dependency, where, strings.Join(c.Rules, " "), strings.Join(skipped, "; ")})
		}
		blocks = append(blocks, htmlBlock{Heading: "Checked"}, htmlBlock{Table: textTable("", []string{"dependency", "where", "rules applied", "skipped"}, rows, nil)})
	}
	blocks = append(blocks, checkSkippedHTML(r)...)
	doc.Sections = []htmlSection{{Blocks: blocks}}
	return writeHTML(w, doc)
}

// checkSkippedHTML lists the files skipped (Result.Skipped, JSON's skipped[]) with their
// reasons under a heading; nothing when none was.
func checkSkippedHTML(r *check.Result) []htmlBlock {
	if len(r.Skipped) == 0 {
		return nil
	}
	items := make([]string, len(r.Skipped))
	for i, sk := range r.Skipped {
		items[i] = sk.Path + ": " + sk.Reason
	}
	return []htmlBlock{{Heading: "Skipped"}, list("muted", items)}
}

// DemoHTML renders the tour as one self-contained HTML page: every stage's verdicts first,
// then a section per stage with its sentence and its own report.
func DemoHTML(w io.Writer, d *demo.Result, _ Options) error {
	doc := htmlDoc{Title: "patience demo", Subtitle: []string{"on a built-in loopback target: no network, no configuration"}}
	for i, s := range demo.Sections {
		if !d.Ran(s) {
			continue
		}
		sec := htmlSection{ID: s, Title: fmt.Sprintf("%d. %s", i+1, strings.ToUpper(s[:1])+s[1:]), Intro: demoIntro(d, s)}
		var lead []htmlVerdict
		var err error
		switch s {
		case "probe":
			lead, sec.Blocks, err = probeHTMLParts(d.Probe)
			for i := range lead {
				lead[i].Name = "probe"
			}
		case "replay":
			lead, sec.Blocks, err = replayHTMLParts(d.Replay, "replay")
		case "live":
			sec.Blocks = agreementHTMLBlocks(d.Live)
		}
		if err != nil {
			return err
		}
		doc.Lead = append(doc.Lead, lead...)
		doc.Sections = append(doc.Sections, sec)
	}
	return writeHTML(w, doc)
}

// agreementHTMLBlocks are the simulated-vs-live table and the line on timer fidelity.
func agreementHTMLBlocks(a *live.Agreement) []htmlBlock {
	headers, rows := agreementTable(a)
	warn, text := agreementFidelity(a)
	class := "muted"
	if warn {
		class = "warn"
	}
	return []htmlBlock{
		{Table: textTable(fmt.Sprintf("real sockets at speed %g; each cell: simulated / live", a.Speed), headers, rows, func(col int) bool { return col > 0 })},
		para(class, text),
	}
}
