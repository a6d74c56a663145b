package scenario

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Purpose is what a scenario is loaded for, which decides the sections the file must have.
// Whatever the purpose, every section present is validated as strictly.
type Purpose int

const (
	// ForReplay needs the whole scenario: load, duration (unless the load is a burst
	// alone), target and a policy. replay, storm, check and demo load scenarios for it.
	ForReplay Purpose = iota
	// ForServe needs only target: serve plays the target's phases timed from its start, and
	// after the last phase the target behaves as its baseline until Ctrl-C or --for. It
	// sends no load and applies no policy, so load, duration and policy are optional.
	ForServe
)

// purposeNames are the text forms of the purposes, the choices of `scenarios validate --for`.
var purposeNames = [...]string{ForReplay: "replay", ForServe: "serve"}

// String is the purpose's name ("replay", "serve").
func (p Purpose) String() string {
	if p < 0 || int(p) >= len(purposeNames) {
		return fmt.Sprintf("Purpose(%d)", int(p))
	}
	return purposeNames[p]
}

// PurposeNames lists the accepted names of a purpose, in order.
func PurposeNames() []string { return purposeNames[:] }

// ParsePurpose is the purpose named s.
func ParsePurpose(s string) (Purpose, error) {
	for i, n := range purposeNames {
		if s == n {
			return Purpose(i), nil
		}
	}
	return 0, fmt.Errorf("%q is not a purpose (want one of %s)", s, strings.Join(purposeNames[:], ", "))
}

// section is one top-level section a purpose may require, with what it is for.
type section struct {
	field, what string
}

// The required sections, in the order the loader reads them; each message is the one the
// loader gives when that section alone is missing.
var (
	loadSection     = section{"load", "who calls the target (rate, concurrency or burst)"}
	durationSection = section{"duration", "how long arrivals continue, e.g. 5m"}
	targetSection   = section{"target", "how the dependency behaves (latency, phases)"}
	policySection   = section{"policy", "the caller's policy (policy: {...}) or a list to compare (policies: [...])"}
)

// needs says whether p requires field.
func (p Purpose) needs(field string) bool {
	return field == "target" || p == ForReplay
}

// missingSections lists the sections p requires that the top-level mapping f lacks. Duration
// is missing when the load is missing too or has rate or concurrency (a burst alone needs none).
func missingSections(f map[string]Entry, p Purpose) []section {
	var out []section
	lf, hasLoad := f["load"]
	if !hasLoad && p.needs("load") {
		out = append(out, loadSection)
	}
	if _, ok := f["duration"]; !ok && p.needs("duration") && (!hasLoad || arrivesOverTime(lf.Val)) {
		out = append(out, durationSection)
	}
	if _, ok := f["target"]; !ok {
		out = append(out, targetSection)
	}
	_, one := f["policy"]
	_, many := f["policies"]
	if !one && !many && p.needs("policy") {
		out = append(out, policySection)
	}
	return out
}

// arrivesOverTime says whether a load mapping has rate or concurrency keys.
func arrivesOverTime(n *yaml.Node) bool {
	n = ResolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k == "rate" || k == "concurrency" {
			return true
		}
	}
	return false
}

// required is the error for the missing section s, reported where the loader first needs
// it (so problems in the sections before it come first, as they always have): s's own
// message when it is the only section p needs that f lacks, else one error naming them all.
func (d *decoder) required(root *yaml.Node, f map[string]Entry, p Purpose, s section) error {
	if missing := missingSections(f, p); len(missing) > 1 {
		return d.missingError(root, p, missing)
	}
	return d.Errf(root, s.field, "required: %s", s.what)
}

// missingError is the one error for several missing sections, each named with what it is
// for, so a file is fixed in one pass rather than one section at a time. Several sections
// have no single position: the error points at the top of the file, with no field.
func (d *decoder) missingError(root *yaml.Node, p Purpose, missing []section) error {
	names := make([]string, len(missing))
	var b strings.Builder
	for i, s := range missing {
		names[i] = s.field
		fmt.Fprintf(&b, "\n  %s: %s", s.field, s.what)
	}
	if p == ForReplay && !slices.Contains(names, "target") {
		b.WriteString("\n  (serve needs only target: check a file for it with patience scenarios validate --for serve)")
	}
	return d.Errf(root, "", "%d required sections missing for %s (%s):%s", len(missing), p, strings.Join(names, ", "), b.String())
}
