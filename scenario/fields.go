package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// The field tables: every key a mapping of a scenario or policy file accepts, one row each,
// with its type, default, meaning and an example. The loader reads every mapping through
// decoder.fields, whose allowed keys are a table's names, so a key cannot be accepted
// without a row; docs/scenario.md is rendered from these tables (TestReferenceDoc, `go test
// ./scenario -run '^TestReferenceDoc$' -update`), every row's example is loaded
// (TestFieldExamples), and every key of every bundled scenario is checked to have a row
// (TestBundledKeysDocumented). A row also carries the step that decodes its field (decode),
// so a decoder is a loop over its table (decodeRows) plus the stages that tie fields
// together, rather than a switch over the keys.

// field is one key of a mapping: what the loader accepts and what docs/scenario.md says
// about it.
type field struct {
	// Name is the key as written in the file.
	Name string
	// Type is what the value must be, bounds included ("integer 1–1000000", "duration").
	Type string
	// Default is what a file that leaves the field out gets, or "required" (with when, if
	// it depends), taken from the loader's own default values where it has one.
	Default string
	// Doc says what the field does, in a sentence or two.
	Doc string
	// Example is YAML of the field's mapping that loads: the field itself, with the other
	// keys it needs (`concurrency` beside `think`). TestFieldExamples loads each one.
	Example string
	// Table is the ID of the table of the value's own keys ("" for a plain value), and Shape
	// how the value holds them.
	Table string
	Shape valueShape
	// Kind is, in a table whose fields depend on a kind (budget), the kind this field
	// belongs to; "" = every kind.
	Kind string
	// decode reads the field's value into the value being built, as check's rules carry
	// their check: a method expression func(*R, Entry, string) error of the table's reader R
	// ((*loadReader).rate), which decodeRows runs. nil when the table's decoder reads the
	// field in a stage of its own, because it depends on other fields (load's request, read
	// after the check that a model is set) or starts the value (a policy's base:).
	decode any
}

// valueShape says how a field's value holds the keys of its Table.
type valueShape int

const (
	// shapeValue is a scalar or a list of scalars: no keys of its own.
	shapeValue valueShape = iota
	// shapeMapping is a mapping with the table's keys (some fields take a scalar instead:
	// none, preset:NAME, a duration).
	shapeMapping
	// shapeList is a list of mappings with the table's keys (or scalars such as preset:NAME).
	shapeList
	// shapeNamed is a mapping from names to mappings with the table's keys (expect:).
	shapeNamed
)

// fieldTable is the keys of one kind of mapping.
type fieldTable struct {
	// ID names the table in field.Table and is its anchor in docs/scenario.md.
	ID string
	// Title heads the table's section; Where lists the field paths the mapping appears at.
	Title, Where string
	// Doc introduces the table: what the mapping is, and rules across its fields.
	Doc    string
	Fields []field
	// keys are the Names of Fields, in order: the allowed keys of decoder.fields and the
	// order messages list them in.
	keys []string
}

// newTable builds a table and its key list; a name given twice is a bug in the table.
func newTable(id, title, where, doc string, fields ...field) *fieldTable {
	t := &fieldTable{ID: id, Title: title, Where: where, Doc: doc, Fields: fields}
	for _, f := range fields {
		if slices.Contains(t.keys, f.Name) {
			panic("scenario: field " + f.Name + " twice in table " + id)
		}
		t.keys = append(t.keys, f.Name)
	}
	return t
}

// without is t less the named fields, under the same ID (a layer's policy has no layers:).
func (t *fieldTable) without(names ...string) *fieldTable {
	var fields []field
	for _, f := range t.Fields {
		if !slices.Contains(names, f.Name) {
			fields = append(fields, f)
		}
	}
	return newTable(t.ID, t.Title, t.Where, t.Doc, fields...)
}

// field is the row of name, or nil.
func (t *fieldTable) field(name string) *field {
	for i := range t.Fields {
		if t.Fields[i].Name == name {
			return &t.Fields[i]
		}
	}
	return nil
}

// kindKeys are the names of the fields of kind (Kind == kind), in table order.
func (t *fieldTable) kindKeys(kind string) []string {
	var out []string
	for _, f := range t.Fields {
		if f.Kind == kind {
			out = append(out, f.Name)
		}
	}
	return out
}

// fields checks that n is a mapping of t's keys and returns its entries: NodeDecoder.Mapping
// with the allowed keys taken from the table. The scenario and policy walker reads every
// mapping through it (TestMappingsUseTables), so each key it accepts has a documented row.
func (d *decoder) fields(n *yaml.Node, path string, t *fieldTable) (map[string]Entry, error) {
	return d.Mapping(n, path, t.keys...)
}

// decodeRows runs the decode step of every row of t that f holds, in the table's order, on
// the reader r of t's rows, each at path.KEY; it stops at the first error. Fields are
// decoded in table order, so of two bad fields the one listed first is the one reported.
func decodeRows[R any](t *fieldTable, f map[string]Entry, path string, r *R) error {
	for i := range t.Fields {
		row := &t.Fields[i]
		e, ok := f[row.Name]
		if !ok || row.decode == nil {
			continue
		}
		if err := decodeRow(row, r, e, JoinPath(path, row.Name)); err != nil {
			return err
		}
	}
	return nil
}

// decodeRow runs one row's decode step on r. A step written for another reader is a bug in
// the table, caught by any load of the field (TestFieldExamples loads every row).
func decodeRow[R any](row *field, r *R, e Entry, path string) error {
	step, ok := row.decode.(func(*R, Entry, string) error)
	if !ok {
		panic(fmt.Sprintf("scenario: field %s decodes into %T, not %T", row.Name, row.decode, r))
	}
	return step(r, e, path)
}

// Text forms of types and defaults, so bounds and defaults in the tables are the loader's
// own values printed, not retyped.

// numberType is a number as NodeDecoder.Number reads it.
const numberType = "number ≥ 0"

// intType is "integer ≥ min", or "integer min–max" when max > 0.
func intType(min, max int) string {
	if max > 0 {
		return fmt.Sprintf("integer %d–%d", min, max)
	}
	return fmt.Sprintf("integer ≥ %d", min)
}

// choiceType is "one of a, b, c".
func choiceType[T ~string](choices []T) string {
	names := make([]string, len(choices))
	for i, c := range choices {
		names[i] = string(c)
	}
	return "one of " + strings.Join(names, ", ")
}

// durOrNone is FormatDuration, or none for 0 (no bound).
func durOrNone(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return FormatDuration(d)
}

// listText writes a list in YAML flow style: [a, b].
func listText[T any](items []T) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = fmt.Sprint(it)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// numText writes a number without trailing zeros.
func numText(v float64) string { return trimFloat(v) }

// pctText writes a share of 1 as a percentage: 0.2 → 20%.
func pctText(v float64) string { return trimFloat(v*100) + "%" }

// distText writes a distribution in the file's syntax ({fixed: 1ms}).
func distText(d Distribution) string {
	switch d.Kind {
	case DistFixed, "":
		return "{fixed: " + FormatDuration(d.Fixed) + "}"
	case DistUniform:
		return "{uniform: [" + FormatDuration(d.Min) + ", " + FormatDuration(d.Max) + "]}"
	case DistExponential:
		return "{exponential: {min: " + FormatDuration(d.Min) + ", mean: " + FormatDuration(d.ExpMean) + "}}"
	case DistLognormal:
		return "{p50: " + FormatDuration(d.P50) + ", p99: " + FormatDuration(d.P99) + "}"
	}
	return "{profile: " + d.Profile + "}"
}

// requestText writes a request in the file's syntax.
func requestText(r Request) string {
	return "{method: " + r.Method + ", path: " + r.Path + ", idempotency_key: " + strconv.FormatBool(r.IdempotencyKey) + "}"
}
