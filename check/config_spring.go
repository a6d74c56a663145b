package check

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/patience-dev/patience/scenario"
	"gopkg.in/yaml.v3"
)

// Spring Boot's relaxed binding, as spring-boot's own source defines it, so that a
// resilience4j key means the same however it is written:
//
//   - YAML is flattened as YamlProcessor.buildFlattenedMap does (OriginTrackedYamlLoader):
//     nested mappings are joined with '.', a key starting with '[' is appended without one,
//     a sequence item is `key[i]`; so `resilience4j.retry:` at the top level, fully nested
//     keys and any mix of the two give the same names.
//   - A name is split into elements as ConfigurationPropertyName.adapt(name, '.') does
//     (ElementsParser: '.' separates, `[...]` is an indexed element that may hold dots).
//   - Elements are compared in their uniform form (ConfigurationPropertyName.Form.UNIFORM:
//     lower case, only a-z and 0-9 kept), so maxAttempts, max-attempts, max_attempts and
//     MAX_ATTEMPTS are one name; indexed elements are compared as written.
//   - A map key (resilience4j.retry.instances.<key>) keeps its original form
//     (Form.ORIGINAL), as MapBinder binds it.
//   - A list binds from the first source that has it, either as one comma-separated value or
//     as contiguous `[0]`, `[1]`… elements (IndexedElementsBinder).
//   - Documents: in a multi-document YAML file a later document overrides an earlier one
//     (Spring Boot 2.4+ config data); a document activated by a profile
//     (spring.config.activate.on-profile, or the older spring.profiles) is not read: check
//     reads the application as it runs without a profile (or with the profiles the file's
//     own spring.profiles.active names) — unless resilience4j is set only
//     in profile documents: then the first of them is read over the others, as if its
//     profile were active, and each layer says so.
//   - .properties files are read as OriginTrackedPropertiesLoader reads them: `=`, `:` or
//     whitespace separates key and value, `#` and `!` start comments, a trailing `\`
//     continues the line, `\uXXXX` and the usual escapes, `#---` separates documents.

// springElem is one element of a configuration property name.
type springElem struct {
	text    string
	indexed bool
}

// uniform is the element's form for equality (Form.UNIFORM).
func (e springElem) uniform() string {
	if e.indexed {
		return e.text
	}
	var b strings.Builder
	for _, r := range strings.ToLower(e.text) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// springElemEqual compares two elements as ConfigurationPropertyName.equals does: indexed
// elements exactly, others in their uniform form.
func springElemEqual(a, b springElem) bool {
	return a.uniform() == b.uniform()
}

// springSplit splits a name into elements (ElementsParser.parse with '.' as separator).
// An element with no valid character is dropped, as the parser drops ElementType.EMPTY.
func springSplit(name string) []springElem {
	var out []springElem
	add := func(s string, indexed bool) {
		if s == "" {
			return
		}
		e := springElem{text: s, indexed: indexed}
		if !indexed && e.uniform() == "" {
			return
		}
		out = append(out, e)
	}
	depth, start := 0, 0
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '[':
			if depth == 0 {
				add(name[start:i], false)
				start = i + 1
			}
			depth++
		case c == ']' && depth > 0:
			depth--
			if depth == 0 {
				add(name[start:i], true)
				start = i + 1
			}
		case c == '.' && depth == 0:
			add(name[start:i], false)
			start = i + 1
		}
	}
	add(name[start:], false) // an unclosed '[' is a plain element (ElementType.NON_UNIFORM)
	return out
}

// springEntry is one property: its name's elements, the key that named it (for positions)
// and its value, a scalar node carrying the file's line and column.
type springEntry struct {
	elems []springElem
	// keyAt holds, for each element, the YAML key (or list item) that wrote it.
	keyAt []*yaml.Node
	key   *yaml.Node
	value *yaml.Node
}

// springProps are the property sources of one file, highest priority first.
type springProps struct {
	sources [][]springEntry
	idx     []*springIndex
	// profiles names the profile documents that were not read; profileDocs holds them.
	profiles    []string
	profileDocs [][]springEntry
	// active is the profile read over the documents without one ("" = none); activated
	// lists the profiles the file's own spring.profiles.active turned on.
	active    string
	activated []string
}

// springFlatten flattens one YAML document as YamlProcessor.buildFlattenedMap does.
func springFlatten(root *yaml.Node) []springEntry {
	var out []springEntry
	var walk func(prefix []springElem, keyAt []*yaml.Node, key, n *yaml.Node, depth int)
	leaf := func(prefix []springElem, keyAt []*yaml.Node, key, v *yaml.Node) {
		out = append(out, springEntry{elems: prefix, keyAt: keyAt, key: key, value: v})
	}
	walk = func(prefix []springElem, keyAt []*yaml.Node, key, n *yaml.Node, depth int) {
		n = scenario.ResolveAlias(n)
		if n == nil || depth > 64 {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			if len(n.Content) == 0 && len(prefix) > 0 {
				leaf(prefix, keyAt, key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Line: n.Line, Column: n.Column})
			}
			for _, kv := range pairs(n) {
				if kv[0].Tag == "!!merge" { // <<: *anchor, applied as SnakeYAML applies merge keys
					walk(prefix, keyAt, key, kv[1], depth+1)
					continue
				}
				add := springSplit(kv[0].Value)
				elems := append(append([]springElem(nil), prefix...), add...)
				at := append([]*yaml.Node(nil), keyAt...)
				for range add {
					at = append(at, kv[0])
				}
				walk(elems, at, kv[0], kv[1], depth+1)
			}
		case yaml.SequenceNode:
			if len(n.Content) == 0 && len(prefix) > 0 {
				leaf(prefix, keyAt, key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Line: n.Line, Column: n.Column})
			}
			for i, it := range n.Content {
				elems := append(append([]springElem(nil), prefix...), springElem{text: strconv.Itoa(i), indexed: true})
				at := append(append([]*yaml.Node(nil), keyAt...), it)
				walk(elems, at, key, it, depth+1)
			}
		case yaml.ScalarNode:
			if len(prefix) > 0 {
				leaf(prefix, keyAt, key, n)
			}
		}
	}
	walk(nil, nil, nil, root, 0)
	return out
}

// springTopLevel says whether a document's first name element is name (uniform form) for
// some key: the cheap test before a file is flattened.
func springTopLevel(root *yaml.Node, name string) bool {
	for _, kv := range pairs(root) {
		if el := springSplit(kv[0].Value); len(el) > 0 && el[0].uniform() == name {
			return true
		}
	}
	return false
}

// springProfileKeys are the names that make a document profile-specific.
var springProfileKeys = [][]springElem{
	springSplit("spring.config.activate.on-profile"),
	springSplit("spring.profiles"),
}

// newSpringProps builds the sources of a YAML file's documents (roots in file order).
func newSpringProps(roots []*yaml.Node) *springProps {
	p := &springProps{}
	for _, root := range roots {
		entries := springFlatten(root)
		if prof := springProfileOf(entries); prof != "" {
			p.profiles = append(p.profiles, prof)
			p.profileDocs = append(p.profileDocs, entries)
			continue
		}
		p.sources = append([][]springEntry{entries}, p.sources...) // a later document wins
	}
	p.activateProfiles()
	return p
}

// activateProfiles applies the profile documents that the file's own spring.profiles.active
// names, over the documents without a profile and in file order (Spring Boot's config data:
// profile-specific documents are added after the others). The environment's
// SPRING_PROFILES_ACTIVE is not check's to read.
func (p *springProps) activateProfiles() {
	e := p.value(springSplit("spring.profiles.active"))
	if e == nil {
		return
	}
	var active []string
	for _, a := range strings.Split(e.value.Value, ",") {
		if a = strings.TrimSpace(a); a != "" {
			active = append(active, a)
		}
	}
	var profiles []string
	var docs [][]springEntry
	for i, prof := range p.profiles {
		if springProfileMatches(prof, active) {
			p.sources = append([][]springEntry{p.profileDocs[i]}, p.sources...)
			p.activated = append(p.activated, prof)
			continue
		}
		profiles, docs = append(profiles, prof), append(docs, p.profileDocs[i])
	}
	p.profiles, p.profileDocs, p.idx = profiles, docs, nil
}

// springProfileMatches says whether a document's on-profile value matches the active
// profiles: a comma-separated list of names, any of which (a `!name` when name is not
// active) activates it. A profile expression with & | ( ) is not evaluated: no match.
func springProfileMatches(expr string, active []string) bool {
	for _, part := range strings.Split(expr, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "" || strings.ContainsAny(part, "&|()"):
		case strings.HasPrefix(part, "!"):
			if !slices.Contains(active, strings.TrimSpace(part[1:])) {
				return true
			}
		case slices.Contains(active, part):
			return true
		}
	}
	return false
}

// withProfile returns the properties as they are with profile document i active: that
// document over the others (Spring Boot applies profile-specific documents last).
func (p *springProps) withProfile(i int) *springProps {
	q := &springProps{active: p.profiles[i]}
	q.sources = append([][]springEntry{p.profileDocs[i]}, p.sources...)
	for j, prof := range p.profiles {
		if j != i {
			q.profiles = append(q.profiles, prof)
		}
	}
	return q
}

// springProfileOf returns the profile a document is activated by ("" = none).
func springProfileOf(entries []springEntry) string {
	var parts []string
	found := false
	for _, e := range entries {
		for _, k := range springProfileKeys {
			// The name itself, or a list under it (on-profile[0]); spring.profiles.active
			// is no profile document.
			if springHasPrefix(e.elems, k) && (len(e.elems) == len(k) || len(e.elems) == len(k)+1 && e.elems[len(k)].indexed) {
				found = true
				if v := strings.TrimSpace(scalar(e.value)); v != "" {
					parts = append(parts, v)
				}
			}
		}
	}
	switch {
	case len(parts) > 0:
		return strings.Join(parts, ",")
	case found:
		return "?"
	}
	return ""
}

func springHasPrefix(elems, prefix []springElem) bool {
	if len(elems) < len(prefix) {
		return false
	}
	for i := range prefix {
		if !springElemEqual(elems[i], prefix[i]) {
			return false
		}
	}
	return true
}

// springPath builds a name from parts, each one element (a map key may hold dots).
func springPath(parts ...string) []springElem {
	out := make([]springElem, len(parts))
	for i, p := range parts {
		out[i] = springElem{text: p}
	}
	return out
}

// springIndex indexes one source by name, so that a lookup is a map access, not a scan: a
// file of thousands of instances reads in linear time.
type springIndex struct {
	// byName maps a full name (uniform elements joined by NUL) to its first entry.
	byName map[string]*springEntry
	// children maps a prefix to the distinct elements that follow it, in file order.
	children map[string][]springElem
	// first maps a prefix to the earliest key in the file that wrote its last element.
	first map[string]*yaml.Node
	// has marks every prefix some name has.
	has map[string]bool
}

// springKey is the index key of elements.
func springKey(elems []springElem) string {
	var b strings.Builder
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(e.uniform())
	}
	return b.String()
}

func newSpringIndex(src []springEntry) *springIndex {
	ix := &springIndex{byName: map[string]*springEntry{}, children: map[string][]springElem{}, first: map[string]*yaml.Node{}, has: map[string]bool{}}
	seenChild := map[string]bool{}
	for i := range src {
		e := &src[i]
		var b strings.Builder
		ix.has[""] = true
		for j, el := range e.elems {
			parent := b.String()
			if j > 0 {
				b.WriteByte(0)
			}
			u := el.uniform()
			b.WriteString(u)
			cur := b.String()
			if ck := parent + "\x01" + u; !seenChild[ck] {
				seenChild[ck] = true
				ix.children[parent] = append(ix.children[parent], el)
			}
			ix.has[cur] = true
			k := e.key
			if j < len(e.keyAt) {
				k = e.keyAt[j]
			}
			if f, ok := ix.first[cur]; !ok || (k != nil && (f == nil || k.Line < f.Line)) {
				ix.first[cur] = k
			}
		}
		if _, ok := ix.byName[b.String()]; !ok {
			ix.byName[b.String()] = e
		}
	}
	return ix
}

// index returns the sources' indexes, highest priority first, building them once.
func (p *springProps) index() []*springIndex {
	if len(p.idx) != len(p.sources) {
		p.idx = make([]*springIndex, len(p.sources))
		for i, src := range p.sources {
			p.idx[i] = newSpringIndex(src)
		}
	}
	return p.idx
}

// under reports whether any property is named with prefix, and the earliest key in the file
// that wrote the prefix's last element.
func (p *springProps) under(prefix []springElem) (*yaml.Node, bool) {
	k := springKey(prefix)
	var first *yaml.Node
	found := false
	for _, ix := range p.index() {
		if !ix.has[k] {
			continue
		}
		if f := ix.first[k]; !found || (f != nil && (first == nil || f.Line < first.Line)) {
			first = f
		}
		found = true
	}
	return first, found
}

// value returns the property at name from the highest-priority source that has it; within
// one source the first in file order.
func (p *springProps) value(name []springElem) *springEntry {
	k := springKey(name)
	for _, ix := range p.index() {
		if e := ix.byName[k]; e != nil {
			return e
		}
	}
	return nil
}

// keys returns the map keys directly under prefix, in their original form, each once
// (compared as elements), in file order of the lowest-priority source first.
func (p *springProps) keys(prefix []springElem) []string {
	var out []string
	for _, k := range p.keyElems(prefix) {
		out = append(out, k.text)
	}
	return out
}

// keyElems is keys with each key's element as written ([key] stays indexed).
func (p *springProps) keyElems(prefix []springElem) []springElem {
	var out []springElem
	seen := map[string]bool{}
	k := springKey(prefix)
	idx := p.index()
	for i := len(idx) - 1; i >= 0; i-- {
		for _, el := range idx[i].children[k] {
			if !seen[el.uniform()] {
				seen[el.uniform()] = true
				out = append(out, el)
			}
		}
	}
	return out
}

// list returns the items of a list property (IndexedElementsBinder): from the first source
// that has it, a comma-separated value or the contiguous indexed elements [0], [1], ….
func (p *springProps) list(name []springElem) []*yaml.Node {
	k := springKey(name)
	for _, ix := range p.index() {
		if e := ix.byName[k]; e != nil {
			var out []*yaml.Node
			for _, part := range strings.Split(e.value.Value, ",") {
				if part = strings.TrimSpace(part); part != "" {
					out = append(out, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: part, Line: e.value.Line, Column: e.value.Column})
				}
			}
			return out
		}
		var out []*yaml.Node
		for i := 0; ; i++ {
			e := ix.byName[k+"\x00"+strconv.Itoa(i)]
			if e == nil {
				break
			}
			out = append(out, e.value)
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// springKeyName writes elements back as a dotted name, for messages.
func springKeyName(elems []springElem) string {
	var b strings.Builder
	for i, e := range elems {
		switch {
		case e.indexed:
			b.WriteString("[" + e.text + "]")
		case i > 0:
			b.WriteString("." + e.text)
		default:
			b.WriteString(e.text)
		}
	}
	return b.String()
}

// springDuration reads a java.time.Duration as Spring Boot's StringToDurationConverter
// does (DurationStyle.detect): the simple style `^([+-]?\d+)([a-zA-Z]{0,2})$` with unit
// ns, us, ms, s, m, h or d (none = ms), or ISO-8601 (`PT0.5S`, `P1DT2H`).
func springDuration(cf *ConfigFile, n *yaml.Node, field string) (time.Duration, error) {
	s := scalar(n)
	bad := func() error {
		return configError(cf, n, field, "want a Spring duration such as 500ms, 2s or PT0.5S, got %s", scenario.KindName(n))
	}
	if s == "" {
		return 0, bad()
	}
	if d, ok := springSimpleDuration(s); ok {
		if d < 0 {
			return 0, configError(cf, n, field, "want a duration ≥ 0, got %s", s)
		}
		return d, nil
	}
	if d, ok := isoDuration(s); ok {
		if d < 0 {
			return 0, configError(cf, n, field, "want a duration ≥ 0, got %s", s)
		}
		return d, nil
	}
	return 0, bad()
}

func springSimpleDuration(s string) (time.Duration, bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i || len(s)-j > 2 {
		return 0, false
	}
	v, err := strconv.ParseInt(s[:j], 10, 64)
	if err != nil {
		return 0, false
	}
	units := map[string]time.Duration{"": time.Millisecond, "ns": time.Nanosecond, "us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	u, ok := units[strings.ToLower(s[j:])]
	if !ok || v > int64(1<<62)/int64(u) || v < -int64(1<<62)/int64(u) {
		return 0, false
	}
	return time.Duration(v) * u, true
}

// isoDuration reads java.time.Duration.parse's form: [+-]P[nD][T[nH][nM][n[.f]S]],
// case-insensitive, each number optionally signed.
func isoDuration(s string) (time.Duration, bool) {
	u := strings.ToUpper(s)
	neg := false
	if u != "" && (u[0] == '+' || u[0] == '-') {
		neg = u[0] == '-'
		u = u[1:]
	}
	if !strings.HasPrefix(u, "P") {
		return 0, false
	}
	u = u[1:]
	datePart, timePart, hasT := strings.Cut(u, "T")
	if hasT && timePart == "" {
		return 0, false
	}
	var total float64
	any := false
	num := func(part string, units []struct {
		suffix byte
		d      time.Duration
	}) bool {
		for _, un := range units {
			k := strings.IndexByte(part, un.suffix)
			if k < 0 {
				continue
			}
			f, err := strconv.ParseFloat(strings.Replace(part[:k], ",", ".", 1), 64)
			if err != nil || (un.suffix != 'S' && strings.ContainsAny(part[:k], ".,")) {
				return false
			}
			total += f * float64(un.d)
			any = true
			part = part[k+1:]
		}
		return part == ""
	}
	type unit = struct {
		suffix byte
		d      time.Duration
	}
	if !num(datePart, []unit{{'D', 24 * time.Hour}}) || !num(timePart, []unit{{'H', time.Hour}, {'M', time.Minute}, {'S', time.Second}}) || !any {
		return 0, false
	}
	if total > float64(1<<62) || total < -float64(1<<62) {
		return 0, false
	}
	if neg {
		total = -total
	}
	return time.Duration(total), true
}

// springInt reads an Integer as Spring's StringToNumberConverterFactory does
// (NumberUtils.parseNumber: whitespace trimmed, decimal or 0x hex).
func springInt(cf *ConfigFile, n *yaml.Node, field string, min int) (int, error) {
	s := strings.Join(strings.Fields(scalar(n)), "")
	var v int64
	var err error
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		v, err = strconv.ParseInt(h, 16, 32)
	} else {
		v, err = strconv.ParseInt(s, 10, 32)
	}
	if err != nil || v < int64(min) || v > 1<<30 {
		return 0, configError(cf, n, field, "want a whole number ≥ %d, got %s", min, scenario.KindName(n))
	}
	return int(v), nil
}

// springFloat reads a Double (a number, whitespace trimmed).
func springFloat(cf *ConfigFile, n *yaml.Node, field string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(scalar(n)), 64)
	if err != nil || v != v || v > 1e12 || v < -1e12 {
		return 0, configError(cf, n, field, "want a number, got %s", scenario.KindName(n))
	}
	return v, nil
}

// springBool reads a Boolean as StringToBooleanConverter does: true, on, yes, 1 and false,
// off, no, 0, any case; "" is unset.
func springBool(cf *ConfigFile, n *yaml.Node, field string) (val, set bool, err error) {
	switch strings.ToLower(strings.TrimSpace(scalar(n))) {
	case "":
		return false, false, nil
	case "true", "on", "yes", "1":
		return true, true, nil
	case "false", "off", "no", "0":
		return false, true, nil
	}
	return false, false, configError(cf, n, field, "want true or false, got %s", scenario.KindName(n))
}

// springPlaceholder resolves a value that is wholly a `${NAME:default}` placeholder to its
// default (the environment is not check's to read); a placeholder without a default is an
// error, since the value cannot be known. resolved is true when a default was taken.
func springPlaceholder(cf *ConfigFile, n *yaml.Node, field string) (out *yaml.Node, resolved bool, err error) {
	s := strings.TrimSpace(scalar(n))
	if !strings.Contains(s, "${") {
		return n, false, nil
	}
	if strings.HasPrefix(s, "${") && strings.HasSuffix(s, "}") && strings.Count(s, "${") == 1 {
		if _, def, ok := strings.Cut(s[2:len(s)-1], ":"); ok {
			c := *n
			c.Value, c.Tag = def, "!!str"
			return &c, true, nil
		}
	}
	return nil, false, configError(cf, n, field, "%s is a placeholder with no default: check cannot know its value", s)
}

// parseSpringProperties reads a .properties file into sources (a `#---` line starts a new
// document; later documents win).
func parseSpringProperties(data []byte) *springProps {
	p := &springProps{}
	var cur []springEntry
	flush := func() {
		if prof := springProfileOf(cur); prof != "" {
			p.profiles = append(p.profiles, prof)
			p.profileDocs = append(p.profileDocs, cur)
		} else if len(cur) > 0 {
			p.sources = append([][]springEntry{cur}, p.sources...)
		}
		cur = nil
	}
	lines := bytes.Split(data, []byte("\n"))
	for i := 0; i < len(lines); i++ {
		lineNo := i + 1
		line := strings.TrimRight(string(lines[i]), "\r")
		trimmed := strings.TrimLeft(line, " \t\f")
		if trimmed == "" {
			continue
		}
		if trimmed[0] == '#' || trimmed[0] == '!' {
			if strings.TrimSpace(trimmed[1:]) == "---" {
				flush()
			}
			continue
		}
		col := len(line) - len(trimmed) + 1
		// Join continuation lines: an odd number of trailing backslashes.
		logical := trimmed
		for trailingBackslashes(logical)%2 == 1 && i+1 < len(lines) {
			i++
			logical = logical[:len(logical)-1] + strings.TrimLeft(strings.TrimRight(string(lines[i]), "\r"), " \t\f")
		}
		key, value, valueOff := splitProperty(logical)
		key = unescapeProperty(key)
		value = unescapeProperty(value)
		elems := springSplit(key)
		if len(elems) == 0 {
			continue
		}
		kn := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: lineNo, Column: col}
		vcol := col + valueOff
		if valueOff >= len(trimmed) {
			vcol = col
		}
		vn := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value, Line: lineNo, Column: vcol}
		at := make([]*yaml.Node, len(elems))
		for i := range at {
			at[i] = kn
		}
		cur = append(cur, springEntry{elems: elems, keyAt: at, key: kn, value: vn})
	}
	flush()
	p.activateProfiles()
	return p
}

func trailingBackslashes(s string) int {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n
}

// splitProperty splits a logical line at the first unescaped '=', ':' or whitespace.
func splitProperty(s string) (key, value string, valueOff int) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	if i > len(s) {
		i = len(s)
	}
	key = s[:i]
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\f') {
		j++
	}
	if j < len(s) && (s[j] == '=' || s[j] == ':') {
		j++
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\f') {
		j++
	}
	return key, strings.TrimRight(s[j:], " \t\f"), j
}

// unescapeProperty applies the .properties escapes: \t \n \r \f, \uXXXX, and \x = x.
func unescapeProperty(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+4 < len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+5], 16, 32); err == nil && utf8.ValidRune(rune(v)) {
					b.WriteRune(rune(v))
					i += 4
					continue
				}
			}
			b.WriteByte('u')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// springFromConfigMaps reads a Spring application.yml or application.properties carried in
// a Kubernetes ConfigMap's data (mounted into the pod as the application's config), with
// the file's own lines: a block scalar's line i is the file's line after its `|`.
func springFromConfigMaps(path string, data []byte, roots []*yaml.Node) (*ConfigFile, error) {
	for _, r := range roots {
		if scalar(get(r, "kind")) != "ConfigMap" || get(r, "apiVersion") == nil {
			continue
		}
		for _, kv := range pairs(get(r, "data")) {
			ext := strings.ToLower(filepath.Ext(kv[0].Value))
			if ext != ".yml" && ext != ".yaml" && ext != ".properties" {
				continue
			}
			text := scalar(kv[1])
			if !strings.Contains(strings.ToLower(text), "resilience") {
				continue
			}
			shift := embeddedShift(data, kv[1])
			var p *springProps
			if ext == ".properties" {
				p = parseSpringProperties([]byte(text))
				for _, src := range [][][]springEntry{p.sources, p.profileDocs} {
					for _, entries := range src {
						for i := range entries {
							shift(entries[i].key)
							if entries[i].value != entries[i].key {
								shift(entries[i].value)
							}
						}
					}
				}
			} else {
				var docs []*yaml.Node
				dec := yaml.NewDecoder(strings.NewReader(text))
				for {
					var n yaml.Node
					if err := dec.Decode(&n); err != nil {
						if !errors.Is(err, io.EOF) {
							return nil, configError(&ConfigFile{Path: path}, kv[0], "data."+kv[0].Value, "not YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
						}
						break
					}
					if len(n.Content) > 0 && n.Content[0].Kind == yaml.MappingNode {
						shiftTree(n.Content[0], shift, 0)
						docs = append(docs, n.Content[0])
					}
				}
				p = newSpringProps(docs)
			}
			cf, err := springConfig(path, data, p)
			if cf != nil {
				name := scalar(get(get(r, "metadata"), "name"))
				for i, k := range cf.Kinds {
					cf.Kinds[i] = "ConfigMap/" + name + "/" + kv[0].Value + ": " + k
				}
			}
			if cf != nil || err != nil {
				return cf, err
			}
		}
	}
	return nil, nil
}

// embeddedShift returns what moves a node of text embedded in the scalar v to its place in
// the file: for a block scalar (| or >), line i of the text is line v.Line+i of the file,
// indented as the block's first line; for any other style, the value's own position.
func embeddedShift(data []byte, v *yaml.Node) func(*yaml.Node) {
	if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		return func(n *yaml.Node) { n.Line, n.Column = v.Line, v.Column }
	}
	indent := 0
	lines := bytes.SplitN(data, []byte("\n"), v.Line+2)
	if len(lines) > v.Line {
		l := lines[v.Line]
		indent = len(l) - len(bytes.TrimLeft(l, " "))
	}
	return func(n *yaml.Node) {
		n.Line += v.Line
		n.Column += indent
	}
}

// shiftTree moves every node of a tree once (aliases point into it and are not followed).
func shiftTree(n *yaml.Node, shift func(*yaml.Node), depth int) {
	if n == nil || depth > 64 || n.Kind == yaml.AliasNode {
		return
	}
	shift(n)
	for _, c := range n.Content {
		shiftTree(c, shift, depth+1)
	}
}
