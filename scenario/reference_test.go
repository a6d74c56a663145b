package scenario

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/scenarios"
	"gopkg.in/yaml.v3"
)

// referenceDoc is docs/scenario.md, relative to this package.
const referenceDoc = "../docs/scenario.md"

// TestReferenceDoc renders the field tables and the preset registry as markdown and compares
// the result with docs/scenario.md; `go test ./scenario -run '^TestReferenceDoc$' -update`
// rewrites it. A field the loader accepts cannot be missing from the document, nor a default
// differ from the loader's.
func TestReferenceDoc(t *testing.T) {
	got := renderReference(t)
	if golden.Updating() {
		if err := os.WriteFile(referenceDoc, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(referenceDoc)
	if err != nil {
		t.Fatalf("%v (run go test ./scenario -run '^TestReferenceDoc$' -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the field tables render (run go test ./scenario -run '^TestReferenceDoc$' -update and read the diff):\n%s",
			referenceDoc, firstDifference(got, want))
	}
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n  rendered: %s\n  in file:  %s", i+1, gl, wl)
		}
	}
	return "(same lines, different bytes)"
}

// renderReference is docs/scenario.md: an introduction, a table of contents, the value
// syntax, one section per field table, the presets and the complete example.
func renderReference(t *testing.T) []byte {
	t.Helper()
	var b strings.Builder
	b.WriteString("# Scenario reference\n\n")
	b.WriteString("<!-- Generated from the loader's field tables (scenario/fields_scenario.go, scenario/fields_policy.go)\n" +
		"     and its preset registry (scenario/presets.go) by: go test ./scenario -run '^TestReferenceDoc$' -update\n" +
		"     Do not edit by hand: the test fails when this file and the tables differ. -->\n\n")
	b.WriteString("A scenario file is the YAML that `patience replay`, `patience storm` and `patience serve` read (and\n" +
		"`patience check` replays, listed under `scenarios:` in a check file): who calls a dependency, how the\n" +
		"dependency behaves, and the callers' timeout and retry policies, replayed side by side on the same\n" +
		"arrivals. This page lists every field the loader accepts, with its type, its default, what it does\n" +
		"and an example. The loader is strict: an unknown field, a wrong type, a bare `0.5` where a percentage\n" +
		"is meant or a `base:` cycle is an error naming `FILE:LINE:COL` and the field (exit 2), with a\n" +
		"suggestion when a field name is close to a known one. `patience scenarios validate FILE` runs the\n" +
		"loader alone; `patience scenarios show NAME` prints a bundled scenario, each a commented example.\n\n")
	b.WriteString("The [policy](#policy) fields are also those of a policy file (`--policy FILE`) and of a check file\n" +
		"dependency's `policy:`.\n\n")

	b.WriteString("## Contents\n\n")
	b.WriteString("- [Values](#values)\n- [What each command needs](#sections)\n")
	for _, tb := range referenceTables {
		fmt.Fprintf(&b, "- [%s](#%s)\n", tb.Title, tb.ID)
	}
	b.WriteString("- [Presets](#presets)\n- [A complete example](#example)\n\n")

	b.WriteString(anchor("values") + "## Values\n\n")
	units := make([]string, 0, len(rateUnits))
	for u := range rateUnits {
		units = append(units, "`/"+u+"`")
	}
	slices.Sort(units)
	fmt.Fprintf(&b, "| value | written | notes |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| duration | `2s`, `250ms`, `1m30s`, `0` | Go durations; a bare number other than 0 is rejected (seconds or milliseconds?) |\n")
	fmt.Fprintf(&b, "| `none` | `none` | no bound, where a field says \"or none\" (`timeout: 0` is rejected: it reads as \"time out at once\") |\n")
	fmt.Fprintf(&b, "| rate | `40/s`, `2400/m` | per %s; a bare number is rejected (per second or per minute?) |\n", strings.Join(units, ", "))
	fmt.Fprintf(&b, "| percentage | `50%%`, `0.1%%` | 0–100%%; a bare `0.5` is rejected (a half, or half a percent?) |\n")
	fmt.Fprintf(&b, "| boolean | `true`, `false` | not `yes`/`no` or a quoted string |\n")
	fmt.Fprintf(&b, "| comparison | `\">= 99%%\"`, `\"<= 2\"`, `0` | `>=`, `<=`, `>`, `<`, `==` (`=` and no operator mean `==`); quote it in YAML |\n\n")

	b.WriteString(anchor("sections") + "## What each command needs\n\n")
	b.WriteString("| section | what it is for | " + ForReplay.String() + ", storm, check | " + ForServe.String() + " |\n|---|---|---|---|\n")
	for _, s := range []section{loadSection, durationSection, targetSection, policySection} {
		need := func(p Purpose) string {
			if !p.needs(s.field) {
				return "optional"
			}
			if s.field == "duration" {
				return "required (not for a burst alone)"
			}
			return "required"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", s.field, cell(s.what), need(ForReplay), need(ForServe))
	}
	b.WriteString("\nA section that is present is checked as strictly whatever the command.\n\n")

	for _, tb := range referenceTables {
		b.WriteString(anchor(tb.ID) + "## " + tb.Title + "\n\n")
		fmt.Fprintf(&b, "At: %s.\n\n", codeList(tb.Where))
		b.WriteString(tb.Doc + "\n\n")
		b.WriteString("| field | type | default | meaning | example |\n|---|---|---|---|---|\n")
		for _, f := range tb.Fields {
			typ := cell(f.Type)
			if f.Table != "" && f.Table != tb.ID {
				typ += fmt.Sprintf(" ([%s](#%s))", tableByID(t, f.Table).Title, f.Table)
			}
			doc := cell(f.Doc)
			if f.Kind != "" {
				doc = "(" + f.Kind + ") " + doc
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", f.Name, typ, cell(f.Default), doc, exampleCell(f.Example))
		}
		b.WriteString("\n")
	}

	b.WriteString(anchor("presets") + "## Presets\n\n")
	b.WriteString("`preset:NAME` stands for a policy wherever one goes (`policy: preset:grpc`, `--policy preset:grpc`)\n" +
		"and can be a `base:`. Each is the default behaviour of the library version it names, POST,\n" +
		"Retry-After and jitter included.\n\n")
	b.WriteString("| preset | what it does | follows | checked |\n|---|---|---|---|\n")
	for _, p := range presets {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", p.name, cell(p.help), cell(p.source), cell(p.checked))
	}
	b.WriteString("\n")

	example, err := os.ReadFile(filepath.Join("testdata", "design_example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString(anchor("example") + "## A complete example\n\n")
	b.WriteString("Every section at once (scenario/testdata/design_example.yaml, which the tests load):\n\n")
	b.WriteString("```yaml\n" + string(example) + "```\n")
	return []byte(b.String())
}

func anchor(id string) string { return `<a id="` + id + `"></a>` + "\n\n" }

// cell escapes text for a markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// exampleCell writes a YAML example as one code span per line.
func exampleCell(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "`" + cell(l) + "`"
	}
	return strings.Join(lines, "<br>")
}

// codeList writes "a, b[]" as "`a`, `b[]`", leaving words that are not paths as they are.
func codeList(s string) string {
	parts := strings.Split(s, ", ")
	for i, p := range parts {
		if !strings.Contains(p, " ") {
			parts[i] = "`" + p + "`"
		}
	}
	return strings.Join(parts, ", ")
}

func tableByID(t testing.TB, id string) *fieldTable {
	t.Helper()
	for _, tb := range referenceTables {
		if tb.ID == id {
			return tb
		}
	}
	t.Fatalf("no field table %q", id)
	return nil
}

// TestFieldTables checks the tables themselves: every row says what docs/scenario.md shows,
// every link names a table, every table is reachable from the top of a scenario, and the
// mappings the loader reads through a derived table keep the fields of the original.
func TestFieldTables(t *testing.T) {
	ids := map[string]bool{}
	for _, tb := range referenceTables {
		if ids[tb.ID] {
			t.Errorf("table %q listed twice", tb.ID)
		}
		ids[tb.ID] = true
		if tb.Title == "" || tb.Where == "" || tb.Doc == "" {
			t.Errorf("table %q: Title, Where and Doc must be set", tb.ID)
		}
		for _, f := range tb.Fields {
			if f.Type == "" || f.Default == "" || f.Doc == "" || f.Example == "" {
				t.Errorf("%s.%s: Type, Default, Doc and Example must all be set: %+v", tb.ID, f.Name, f)
			}
			if (f.Table == "") != (f.Shape == shapeValue) {
				t.Errorf("%s.%s: a field with a Table needs a Shape and only then: %+v", tb.ID, f.Name, f)
			}
		}
	}
	reached := map[string]bool{}
	var reach func(id string)
	reach = func(id string) {
		if reached[id] {
			return
		}
		reached[id] = true
		for _, f := range tableByID(t, id).Fields {
			if f.Table != "" {
				reach(f.Table)
			}
		}
	}
	reach(scenarioTable.ID)
	for id := range ids {
		if !reached[id] {
			t.Errorf("table %q is not reachable from the top of a scenario", id)
		}
	}
	if got, want := nestedPolicyTable.keys, slices.DeleteFunc(slices.Clone(policyTable.keys), func(k string) bool { return k == "layers" }); !slices.Equal(got, want) {
		t.Errorf("a layer's policy takes %v, want %v", got, want)
	}
	if got := slices.Concat(budgetTable.kindKeys(""), budgetTable.kindKeys("token_bucket"), budgetTable.kindKeys("ratio")); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(budgetTable.keys))) {
		t.Errorf("budget fields by kind %v do not cover the table %v", got, budgetTable.keys)
	}
}

// TestDefaultsAreTheLoaders loads a scenario that sets none of the optional fields and
// compares what it got with the Default column for the fields whose default is a value.
func TestDefaultsAreTheLoaders(t *testing.T) {
	src := "duration: 1m\nload: {rate: 1/s, request: {}}\ntarget:\n  latency: {fixed: 10ms}\n  capacity: {workers: 1}\n" +
		"  phases: [{at: 1s, for: 1s, faults: [{status: 503}]}]\npolicy: {retry: {}, budget: {kind: ratio}, breaker: {}}\n" +
		"policies: [{name: tb, budget: {kind: token_bucket}}]\nlayers: [{policy: {}}]\n"
	sc, err := Parse([]byte(src), "defaults.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, tb := sc.Policies[0], sc.Policies[1]
	for _, c := range []struct {
		table *fieldTable
		key   string
		got   string
	}{
		{scenarioTable, "seed", fmt.Sprint(sc.Seed)},
		{scenarioTable, "drain", FormatDuration(sc.Drain)},
		{loadTable, "clients", fmt.Sprint(sc.Load.Clients)},
		{loadTable, "workers", fmt.Sprint(sc.Load.Workers) + " (unbounded)"},
		{loadTable, "think", FormatDuration(sc.Load.Think)},
		{loadTable, "request", requestText(sc.Load.Request)},
		{requestTable, "method", sc.Load.Request.Method},
		{requestTable, "path", sc.Load.Request.Path},
		{requestTable, "idempotency_key", fmt.Sprint(sc.Load.Request.IdempotencyKey)},
		{targetTable, "connect", distText(sc.Target.Connect)},
		{targetTable, "conflicts", sc.Target.Conflicts},
		{capacityTable, "queue", fmt.Sprint(sc.Target.Capacity.Queue) + " (no queue)"},
		{faultTable, "percent", pctText(sc.Target.Phases[0].Faults[0].Percent)},
		{policyTable, "connect_timeout", durOrNone(p.ConnectTimeout)},
		{policyTable, "timeout", durOrNone(p.Timeout) + " (wait forever)"},
		{policyTable, "deadline", durOrNone(p.Deadline)},
		{policyTable, "fallback", fmt.Sprint(p.Fallback)},
		{retryTable, "max_attempts", fmt.Sprint(p.Retry.MaxAttempts) + " (no retry)"},
		{retryTable, "on", listText(p.Retry.On)},
		{retryTable, "never", listText(p.Retry.Never)},
		{retryTable, "non_idempotent", string(p.Retry.NonIdempotent)},
		{retryTable, "backoff", string(p.Retry.Backoff)},
		{retryTable, "base", FormatDuration(p.Retry.Base)},
		{retryTable, "multiplier", numText(p.Retry.Multiplier)},
		{retryTable, "cap", durOrNone(p.Retry.Cap)},
		{retryTable, "jitter", string(p.Retry.Jitter)},
		{retryTable, "jitter_factor", numText(p.Retry.JitterFactor)},
		{retryTable, "retry_after", string(p.Retry.RetryAfter)},
		{retryTable, "retry_after_max", durOrNone(p.Retry.RetryAfterMax)},
		{budgetTable, "percent", pctText(p.Budget.Percent)},
		{budgetTable, "min_per_s", numText(p.Budget.MinPerS)},
		{budgetTable, "window", FormatDuration(p.Budget.Window)},
		{budgetTable, "capacity", numText(tb.Budget.Capacity)},
		{budgetTable, "retry_cost", numText(tb.Budget.RetryCost)},
		{budgetTable, "timeout_cost", numText(tb.Budget.TimeoutCost)},
		{budgetTable, "refill", numText(tb.Budget.Refill)},
		{breakerTable, "failure_rate", pctText(p.Breaker.FailureRate)},
		{breakerTable, "min_requests", fmt.Sprint(p.Breaker.MinRequests)},
		{breakerTable, "window", FormatDuration(p.Breaker.Window)},
		{breakerTable, "open_for", FormatDuration(p.Breaker.OpenFor)},
		{breakerTable, "half_open", fmt.Sprint(p.Breaker.HalfOpen)},
	} {
		f := c.table.field(c.key)
		if f == nil {
			t.Errorf("%s has no field %s", c.table.ID, c.key)
			continue
		}
		if f.Default != c.got {
			t.Errorf("%s.%s: the table says %q, the loader gives %q", c.table.ID, c.key, f.Default, c.got)
		}
	}
	// An unnamed phase and layer are named by place: the tables' defaults start with them.
	if got, def := sc.Target.Phases[0].Name, phaseTable.field("name").Default; !strings.HasPrefix(def, got+", ") {
		t.Errorf("phase.name: the table says %q, the loader names the first phase %q", def, got)
	}
	if got, def := p.Layers[0].Name, layerTable.field("name").Default; !strings.HasPrefix(def, got+", ") {
		t.Errorf("layer.name: the table says %q, the loader names the first layer %q", def, got)
	}
}

// exampleSkeletons are valid scenarios, one mapping of each tagged !ex:TABLE: a row's
// example is merged into the mapping of its table (its keys replace the skeleton's) and the
// result must load. A table whose fields exclude each other starts from an empty mapping.
var exampleSkeletons = []string{`!ex:scenario
name: reference
duration: 1m
load: !ex:load {burst: 1, request: !ex:request {}}
target: !ex:target
  latency: {fixed: 10ms}
  capacity: !ex:capacity {workers: 4}
  phases:
    - !ex:phase {at: 10s, for: 5s, stall: true}
policy: !ex:policy
  name: ours
  timeout: 1s
  retry: !ex:retry {}
  budget: !ex:budget {kind: token_bucket}
  breaker: !ex:breaker {}
  bulkhead: !ex:bulkhead {max_concurrent: 2}
layers:
  - !ex:layer {name: gateway, policy: {timeout: 10s}}
expect: {"*": !ex:expect {}}
`, `duration: 1m
load: {rate: 10/s}
target: {latency: {fixed: 10ms}}
policy: {name: ours}
lesson: !ex:lesson {recommends: ours}
`, `duration: 1m
load: {rate: 10/s}
target: {latency: !ex:distribution {}}
policy: {timeout: 1s}
`, `duration: 1m
load: {rate: 10/s}
target: {latency: {exponential: !ex:exponential {mean: 5ms}}}
policy: {timeout: 1s}
`, `duration: 1m
load: {rate: 10/s}
target: {latency: {lognormal: !ex:lognormal {p50: 80ms, p99: 400ms}}}
policy: {timeout: 1s}
`, `duration: 1m
load: {rate: 10/s}
target:
  latency: {fixed: 10ms}
  phases: [{at: 10s, for: 5s, faults: [!ex:fault {}]}]
policy: {timeout: 1s}
`, `duration: 1m
load: {rate: 10/s}
target:
  latency: {fixed: 10ms}
  phases: [{at: 10s, for: 5s, faults: [{status: 503, retry_after: !ex:retry_after {date: +1s}}]}]
policy: {timeout: 1s}
`, streamSkeleton}

// streamSkeleton is a serve scenario with a stream target: the rows of a stream, and the
// target and phase rows that need one (streamRows), load in it, for serve.
const streamSkeleton = `target: !ex:target
  stream: !ex:stream
    first_event: {fixed: 100ms}
    gap: {fixed: 10ms}
    events: !ex:stream_events {uniform: [1, 2]}
    stall: !ex:stream_stall {percent: 1%, for: 1s}
  phases:
    - !ex:phase {at: 10s, for: 5s, gap: {fixed: 20ms}}
`

// streamRows are the rows whose examples load in streamSkeleton rather than in the first
// skeleton with their table: they need a stream target.
var streamRows = map[string]bool{"target.stream": true, "phase.first_event": true, "phase.gap": true}

// TestFieldExamples loads every row's example in its table's place in a valid scenario
// (exampleSkeletons), and checks that the example sets the row's field.
func TestFieldExamples(t *testing.T) {
	dir := t.TempDir()
	enc, err := profile.EncodeHistogram(testHistogram())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "probe.json"), []byte(`{"schema":"patience/probe/v1","histogram":"`+string(enc)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "example.yaml")
	for _, tb := range referenceTables {
		for _, f := range tb.Fields {
			t.Run(tb.ID+"."+f.Name, func(t *testing.T) {
				var ex yaml.Node
				if err := yaml.Unmarshal([]byte(f.Example), &ex); err != nil || len(ex.Content) != 1 || ex.Content[0].Kind != yaml.MappingNode {
					t.Fatalf("example %q is not a YAML mapping (%v)", f.Example, err)
				}
				m := ex.Content[0]
				if !slices.ContainsFunc(m.Content, func(k *yaml.Node) bool { return k.Value == f.Name }) {
					t.Errorf("example %q does not set %s", f.Example, f.Name)
				}
				root, at := skeletonFor(t, tb.ID)
				stream := streamRows[tb.ID+"."+f.Name]
				if stream {
					root, at = taggedIn(t, streamSkeleton, tb.ID)
					dropKey(at, "latency")
				}
				merge(at, m)
				untag(root)
				data := marshal(t, root)
				// A stream is serve's alone (replay refuses it): its rows load for serve.
				purpose := ForReplay
				if stream || strings.HasPrefix(tb.ID, "stream") {
					purpose = ForServe
				}
				if _, err := ParseFor(data, file, purpose); err != nil {
					t.Errorf("example %q does not load for %s: %v\n%s", f.Example, purpose, err, data)
				}
			})
		}
	}
}

func parseSkeleton(t *testing.T, s string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

// skeletonFor parses the skeleton that holds the mapping tagged !ex:ID and returns its root
// and that mapping.
func skeletonFor(t *testing.T, id string) (root, at *yaml.Node) {
	t.Helper()
	for _, s := range exampleSkeletons {
		root := parseSkeleton(t, s)
		var find func(n *yaml.Node) *yaml.Node
		find = func(n *yaml.Node) *yaml.Node {
			if n.Tag == "!ex:"+id {
				return n
			}
			for _, c := range n.Content {
				if f := find(c); f != nil {
					return f
				}
			}
			return nil
		}
		if at := find(root); at != nil {
			return root, at
		}
	}
	t.Fatalf("no example skeleton has a mapping tagged !ex:%s: add one to exampleSkeletons", id)
	return nil, nil
}

// taggedIn parses skeleton and returns its root and its mapping tagged !ex:ID.
func taggedIn(t *testing.T, skeleton, id string) (root, at *yaml.Node) {
	t.Helper()
	root = parseSkeleton(t, skeleton)
	var find func(n *yaml.Node) *yaml.Node
	find = func(n *yaml.Node) *yaml.Node {
		if n.Tag == "!ex:"+id {
			return n
		}
		for _, c := range n.Content {
			if f := find(c); f != nil {
				return f
			}
		}
		return nil
	}
	if at = find(root); at == nil {
		t.Fatalf("the skeleton has no mapping tagged !ex:%s", id)
	}
	return root, at
}

// dropKey removes key from the mapping n.
func dropKey(n *yaml.Node, key string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content = append(n.Content[:i], n.Content[i+2:]...)
			return
		}
	}
}

// merge sets every key of src in the mapping dst, replacing a value dst has.
func merge(dst, src *yaml.Node) {
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], src.Content[i+1]
		replaced := false
		for j := 0; j+1 < len(dst.Content); j += 2 {
			if dst.Content[j].Value == k.Value {
				dst.Content[j+1], replaced = v, true
			}
		}
		if !replaced {
			dst.Content = append(dst.Content, k, v)
		}
	}
}

// untag drops the !ex: tags so the loader sees plain mappings.
func untag(n *yaml.Node) {
	if strings.HasPrefix(n.Tag, "!ex:") {
		n.Tag = "!!map"
	}
	for _, c := range n.Content {
		untag(c)
	}
}

func marshal(t *testing.T, n *yaml.Node) []byte {
	t.Helper()
	data, err := yaml.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestBundledKeysDocumented walks every bundled scenario and every scenario under testdata
// through the field tables: each key must have a row in the table of its place.
func TestBundledKeysDocumented(t *testing.T) {
	files := map[string][]byte{}
	for _, name := range scenarios.AllNames() {
		data, err := scenarios.Read(name)
		if err != nil {
			t.Fatal(err)
		}
		files["scenarios/"+name+".yaml"] = data
	}
	testdata, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range testdata {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = data
	}
	if len(files) < 2 {
		t.Fatalf("found %d scenario files", len(files))
	}
	for file, data := range files {
		root, err := ParseDocument(data, file, scenarioWords)
		if err != nil {
			t.Fatal(err)
		}
		keys := 0
		walkKeys(t, file, root, scenarioTable, "", &keys)
		if keys == 0 {
			t.Errorf("%s: no keys walked", file)
		}
	}
}

// walkKeys checks every key of the mapping n against table, and the values that hold keys
// of their own against the table their row names.
func walkKeys(t *testing.T, file string, n *yaml.Node, table *fieldTable, path string, count *int) {
	n = ResolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], ResolveAlias(n.Content[i+1])
		*count++
		f := table.field(k.Value)
		if f == nil {
			t.Errorf("%s:%d: %s is not in the %s table, so docs/scenario.md does not document it", file, k.Line, JoinPath(path, k.Value), table.ID)
			continue
		}
		if f.Table == "" {
			continue
		}
		sub := tableByID(t, f.Table)
		fp := JoinPath(path, k.Value)
		switch f.Shape {
		case shapeMapping:
			walkKeys(t, file, v, sub, fp, count)
		case shapeList:
			if v.Kind == yaml.SequenceNode {
				for j, it := range v.Content {
					walkKeys(t, file, it, sub, IndexPath(fp, j), count)
				}
			}
		case shapeNamed:
			if v.Kind == yaml.MappingNode {
				for j := 0; j+1 < len(v.Content); j += 2 {
					walkKeys(t, file, v.Content[j+1], sub, JoinPath(fp, v.Content[j].Value), count)
				}
			}
		}
	}
}

// TestMappingsUseTables: in the package's code, NodeDecoder.Mapping is called only by
// decoder.fields, so every mapping the loader reads takes its keys from a field table.
func TestMappingsUseTables(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			ast.Inspect(fn, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Mapping" {
					calls++
					if fn.Name.Name != "fields" {
						t.Errorf("%s: %s calls Mapping with its own key list: use d.fields with a field table", fset.Position(call.Pos()), fn.Name.Name)
					}
				}
				return true
			})
		}
	}
	if calls != 1 {
		t.Errorf("found %d calls of Mapping, want the one in decoder.fields", calls)
	}
}
