package check

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
	"gopkg.in/yaml.v3"
)

// The readers of the retry and timeout settings teams already run. Every fact they encode
// (field names, what counts attempts and what counts retries, defaults) is from
// docs/formats.md ("Config formats" and the sections before it), cited per reader by its section there.

// Walk limits: `patience check deploy/` reads a tree, not a disk.
const (
	// MaxWalkFiles is the most candidate files a directory walk reads.
	MaxWalkFiles = 20000
	// maxWalkDepth is how deep a walk descends below the directory named.
	maxWalkDepth = 16
)

// ConfigFile is one real config file check recognised by its content: Kubernetes resources
// (Ingress, VirtualService, HTTPRoute, ...), an Envoy bootstrap or route config, a gRPC
// service config, a Spring application.yml with resilience4j, an AWS shared config.
type ConfigFile struct {
	Path string `json:"file"`
	// Format names what was recognised: "kubernetes", "envoy", "grpc-service-config",
	// "resilience4j", "aws-config".
	Format string `json:"format"`
	// Kinds lists the resources read, "VirtualService/partner".
	Kinds []string `json:"resources"`
	// Includes are the files an nginx configuration includes, read as part of it; Notes say
	// what an include was read as, or why one was left out.
	Includes []string `json:"includes,omitempty"`
	Notes    []string `json:"notes,omitempty"`
	docs     []*configDoc
	ignores  map[int]map[string]bool
	// includeIgnores are the `# patience:ignore` comments of each included file;
	// includeReal the included files' real paths.
	includeIgnores map[string]map[int]map[string]bool
	includeReal    []string
}

// SkippedFile is a file check was given (or found in a directory) and did not read.
type SkippedFile struct {
	Path   string `json:"file"`
	Reason string `json:"reason"`
}

// configDoc is one document of a config file: one Kubernetes resource, or the whole file for
// the other formats.
type configDoc struct {
	file       *ConfigFile
	node       *yaml.Node
	apiVersion string
	kind       string
	name       string
	namespace  string
	pos        policy.Pos // the resource: its kind: line, or the document's first line
	// spring holds a Spring application's properties (format resilience4j).
	spring *springProps
	// nginx is the location of an nginx configuration (format nginx).
	nginx *nginxLoc
}

// Configs are every config file of a run: those named or found on the command line and
// those a `via:` names, each read once.
type Configs struct {
	Files   []*ConfigFile
	Skipped []SkippedFile
	byPath  map[string]*ConfigFile
	// included maps the real path of every file an nginx configuration read includes to
	// that configuration.
	included map[string]*ConfigFile
	// used marks the layers a via chain took, so that inferred chains leave them out.
	used map[*configDoc]bool
	// hostDocs are the documents whose layers route each host, for the join of a call's
	// literal host (source_chain.go); nil until a call asks.
	hostDocs map[string][]*configDoc
	// Getenv reads AWS_RETRY_MODE and AWS_MAX_ATTEMPTS (nil = none set).
	Getenv func(string) string
	// GatewayImpl is --gateway-impl: who translates Gateway API routes ("" = from the inputs).
	GatewayImpl GatewayImpl
}

// NewConfigs returns an empty set.
func NewConfigs() *Configs {
	return &Configs{byPath: map[string]*ConfigFile{}, used: map[*configDoc]bool{}, included: map[string]*ConfigFile{}}
}

func (cs *Configs) add(cf *ConfigFile) {
	if _, ok := cs.byPath[cf.Path]; ok {
		return
	}
	cs.byPath[cf.Path] = cf
	cs.Files = append(cs.Files, cf)
	for _, r := range cf.includeReal {
		if _, ok := cs.included[r]; !ok {
			cs.included[r] = cf
		}
	}
}

// open returns the config file at path, reading it on first use (a via: names it).
func (cs *Configs) open(path string) (*ConfigFile, error) {
	if cf, ok := cs.byPath[path]; ok {
		return cf, nil
	}
	if root, ok := cs.included[realPath(path)]; ok {
		// A file an nginx.conf read includes: its locations as that configuration has them.
		return root.includedView(path), nil
	}
	data, err := readBounded(path)
	if err != nil {
		// readBounded's errors carry no path: the via: entry's error names the file.
		return nil, fmt.Errorf("%s: cannot read: %w", path, err)
	}
	cf, reason, err := ParseConfig(path, data)
	if err != nil {
		return nil, err
	}
	if cf == nil {
		return nil, fmt.Errorf("%s is not a config check reads (%s)", path, reason)
	}
	cs.add(cf)
	return cf, nil
}

// ParseConfig recognises data by its content and splits it into documents. It returns nil
// and the reason when the file is none of the formats check reads; an error only for a file
// that is one of them and holds a value check cannot read (*scenario.Error at its line) — or
// carries a format's marker keys (resilience4j, static_resources, virtual_hosts, an Envoy
// config dump's configs) and yet holds nothing check can read: that is never a skip.
func ParseConfig(path string, data []byte) (*ConfigFile, string, error) {
	for _, f := range configFormats {
		if f.detect(path, data) {
			return f.parse(path, data)
		}
	}
	cf, reason, err := readYAMLConfig(path, data)
	if cf == nil && err == nil && strings.EqualFold(filepath.Ext(path), ".conf") {
		reason = "a .conf that is not nginx configuration (no server, location or proxy_pass directive nginx's grammar reads), and " + reason
	}
	return cf, reason, err
}

// configFormat is a family of files ParseConfig tells apart before it tries YAML: detect
// says whether a file is one (by its name or its content), parse reads it.
type configFormat struct {
	detect func(path string, data []byte) bool
	parse  func(path string, data []byte) (*ConfigFile, string, error)
}

// configFormats are tried in order; a file none of them detects is read as YAML or JSON
// (Spring application.yml, Kubernetes resources, Envoy, gRPC service config).
var configFormats = []configFormat{
	{detect: isNginxConf, parse: readNginxConf},
	{detect: isProperties, parse: readProperties},
	{detect: isINI, parse: readINI},
}

func isProperties(path string, _ []byte) bool {
	return strings.EqualFold(filepath.Ext(path), ".properties")
}

func isINI(_ string, data []byte) bool { return looksINI(data) }

// readProperties reads a Spring application.properties.
func readProperties(path string, data []byte) (*ConfigFile, string, error) {
	cf, err := springConfig(path, data, parseSpringProperties(data))
	if cf == nil && err == nil {
		return nil, "Java properties without resilience4j settings", nil
	}
	return cf, "", err
}

// readINI reads an AWS shared config file, one document per profile.
func readINI(path string, data []byte) (*ConfigFile, string, error) {
	cf := &ConfigFile{Path: path, Format: "aws-config", ignores: parseIgnores(data)}
	doc, ok := parseAWSConfig(cf, data)
	if !ok {
		return nil, "INI without AWS retry settings", nil
	}
	cf.docs = doc
	for _, d := range doc {
		cf.Kinds = append(cf.Kinds, "profile/"+d.name)
	}
	return cf, "", nil
}

// readYAMLConfig reads a YAML or JSON file: a Spring application.yml, Spring properties in
// Kubernetes ConfigMaps, else the resources check reads, each read once now.
func readYAMLConfig(path string, data []byte) (*ConfigFile, string, error) {
	roots, nodes, reason := yamlDocuments(data)
	if reason != "" {
		return nil, reason, nil
	}
	if cf, err := springYAML(path, data, roots); cf != nil || err != nil {
		return cf, "", err
	}
	if cf, err := springFromConfigMaps(path, data, roots); cf != nil || err != nil {
		return cf, "", err
	}
	cf, markers := yamlResources(path, data, nodes)
	if len(cf.docs) == 0 {
		return nil, nothingReadReason(roots, nodes), nil
	}
	if err := readEachDoc(cf, markers); err != nil {
		return nil, "", err
	}
	return cf, "", nil
}

// yamlDocuments decodes every document of data: roots are the mappings, nodes the mappings
// and the lists. reason is set when data is not YAML or holds too many documents.
func yamlDocuments(data []byte) (roots, nodes []*yaml.Node, reason string) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return roots, nodes, ""
		}
		if err != nil {
			return nil, nil, "not YAML or JSON: " + strings.TrimPrefix(err.Error(), "yaml: ")
		}
		if len(n.Content) > 0 {
			switch c := n.Content[0]; c.Kind {
			case yaml.MappingNode:
				roots = append(roots, c)
				nodes = append(nodes, c)
			case yaml.SequenceNode:
				nodes = append(nodes, c)
			}
		}
		if len(nodes) > 10000 {
			return nil, nil, "more than 10000 documents"
		}
	}
}

// springYAML reads a Spring application.yml: resilience4j keys however they are written
// (nested, dotted, kebab-case or camelCase), in the documents that are not Kubernetes
// resources. nil when no such document has a resilience4j key.
func springYAML(path string, data []byte, roots []*yaml.Node) (*ConfigFile, error) {
	var springRoots []*yaml.Node
	marked := false
	for _, r := range roots {
		if get(r, "apiVersion") == nil || get(r, "kind") == nil {
			springRoots = append(springRoots, r)
			marked = marked || springTopLevel(r, "resilience4j")
		}
	}
	if !marked {
		return nil, nil
	}
	return springConfig(path, data, newSpringProps(springRoots))
}

// yamlResources collects the documents check reads (Kubernetes resources, Envoy configs,
// gRPC service configs) and the Envoy marker of each that has one.
func yamlResources(path string, data []byte, nodes []*yaml.Node) (*ConfigFile, map[*configDoc]*yaml.Node) {
	cf := &ConfigFile{Path: path, ignores: parseIgnores(data)}
	markers := map[*configDoc]*yaml.Node{}
	for _, root := range nodes {
		doc := &configDoc{file: cf, node: root, pos: policy.Pos{File: path, Line: root.Line, Col: root.Column}}
		format, marker := resourceFormat(doc)
		if format == "" {
			continue
		}
		cf.Format = format
		if marker != nil {
			markers[doc] = marker
		}
		cf.docs = append(cf.docs, doc)
		cf.Kinds = append(cf.Kinds, doc.title())
	}
	return cf, markers
}

// resourceFormat says which format doc is ("" = none check reads) and returns its Envoy
// marker, if any. A Kubernetes resource's kind, name, namespace and position go into doc.
func resourceFormat(doc *configDoc) (format string, marker *yaml.Node) {
	root := doc.node
	if root.Kind == yaml.SequenceNode {
		// A YAML or JSON list of resources (Envoy Gateway's xds-ir outputs, what
		// `istioctl proxy-config route -o json` prints).
		if m := envoyListMarker(root); m != nil {
			return "envoy", m
		}
		return "", nil
	}
	switch {
	case get(root, "apiVersion") != nil && get(root, "kind") != nil:
		readKubernetesHeader(doc)
		if !kubernetesKindRead(doc) {
			return "", nil
		}
		return "kubernetes", nil
	case envoyMarker(root) != nil:
		return "envoy", envoyMarker(root)
	case get(root, "methodConfig") != nil || get(root, "retryThrottling") != nil:
		return "grpc-service-config", nil
	}
	return "", nil
}

// readKubernetesHeader fills doc's apiVersion, kind, name and namespace, and points it at
// its kind: line.
func readKubernetesHeader(doc *configDoc) {
	root := doc.node
	doc.apiVersion, doc.kind = scalar(get(root, "apiVersion")), scalar(get(root, "kind"))
	doc.name = scalar(get(get(root, "metadata"), "name"))
	doc.namespace = scalar(get(get(root, "metadata"), "namespace"))
	if k := get(root, "kind"); k != nil {
		doc.pos = posOf(doc.file, k)
	}
}

// nothingReadReason says why a YAML file holds no document check reads.
func nothingReadReason(roots, nodes []*yaml.Node) string {
	switch {
	case len(roots) > 0:
		return "no retry or timeout settings check reads" + kindsNote(roots)
	case len(nodes) > 0:
		return "a YAML list of nothing check reads"
	}
	return "no YAML mapping"
}

// readEachDoc reads each document once now: a wrong value is an input error whether or not
// a chain uses the resource. An Envoy document with its marker keys and nothing to read is
// one too.
func readEachDoc(cf *ConfigFile, markers map[*configDoc]*yaml.Node) error {
	for _, d := range cf.docs {
		cands, err := d.layers(nil)
		if err != nil {
			return err
		}
		if m := markers[d]; m != nil && len(cands) == 0 && !envoyHasRoutes(d.node, 0) {
			return envoyNothingToRead(cf, d, m)
		}
	}
	return nil
}

// springConfig returns the resilience4j config of Spring properties, nil when they hold no
// resilience4j key, an error when they hold some but nothing check can read.
func springConfig(path string, data []byte, p *springProps) (*ConfigFile, error) {
	at, found, _ := resilience4jMarker(p)
	for i := 0; !found && i < len(p.profiles); i++ {
		// resilience4j only in a profile document: read it as if that profile were active.
		q := p.withProfile(i)
		if qa, ok, _ := resilience4jMarker(q); ok {
			p, at, found = q, qa, true
		}
	}
	if !found {
		return nil, nil
	}
	cf := &ConfigFile{Path: path, Format: "resilience4j", ignores: parseIgnores(data)}
	if err := resilience4jReadable(cf, p); err != nil {
		return nil, err
	}
	doc := &configDoc{file: cf, spring: p, pos: posOf(cf, at)}
	cf.docs = []*configDoc{doc}
	cands, err := doc.layers(nil)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, configError(cf, at, "resilience4j", "no instances, and no configs.default, to read")
	}
	for _, c := range cands {
		cf.Kinds = append(cf.Kinds, "resilience4j/"+c.layer.Name)
	}
	return cf, nil
}

// kindsNote lists the Kubernetes kinds of a file check did not read: " (Deployment, Service)".
func kindsNote(roots []*yaml.Node) string {
	var kinds []string
	for _, r := range roots {
		if k := scalar(get(r, "kind")); k != "" && !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return ""
	}
	if len(kinds) > 4 {
		kinds = append(kinds[:4], "…")
	}
	return " (" + strings.Join(kinds, ", ") + ")"
}

func (d *configDoc) title() string {
	if d.kind != "" {
		if d.name != "" {
			return d.kind + "/" + d.name
		}
		return d.kind
	}
	if d.name != "" {
		return d.file.Format + "/" + d.name
	}
	return d.file.Format
}

// kubernetesKindRead says whether check reads this Kubernetes resource.
func kubernetesKindRead(d *configDoc) bool {
	group, _, _ := strings.Cut(d.apiVersion, "/")
	switch d.kind {
	case "VirtualService", "DestinationRule":
		return strings.HasSuffix(group, "istio.io")
	case "IstioOperator":
		return get(get(d.node, "spec"), "meshConfig") != nil
	case "Ingress":
		return (group == "networking.k8s.io" || group == "extensions") && (isALBIngress(d.node) || isNginxIngress(d.node))
	case "IngressClass":
		// The class of the AWS Load Balancer Controller: its parameters name the
		// IngressClassParams whose load balancer attributes its Ingresses get (config_alb.go).
		return group == "networking.k8s.io" && scalar(get(get(d.node, "spec"), "controller")) == albController
	case "IngressClassParams":
		return group == "elbv2.k8s.aws"
	case "ConfigMap":
		data := get(d.node, "data")
		return nginxConfigMap(data) || (d.name == "istio" && get(data, "mesh") != nil)
	case "HTTPRoute", "GRPCRoute", "GatewayClass", "Gateway":
		// A GatewayClass or Gateway holds no layer: it names the implementation that
		// translates the routes (gateway_impl.go).
		return strings.HasSuffix(group, "gateway.networking.k8s.io")
	case "EnvoyProxy":
		return group == "gateway.envoyproxy.io"
	case "ServiceProfile":
		return strings.HasPrefix(group, "linkerd.io")
	case "Service":
		return hasLinkerdAnnotations(d.node)
	case "Resiliency":
		return strings.HasPrefix(group, "dapr.io")
	}
	return false
}

// layers builds the layers a document holds (cs nil: only validate it). A DestinationRule,
// a ConfigMap or a mesh config holds none of its own: they change the layers of others.
func (d *configDoc) layers(cs *Configs) ([]*layerCandidate, error) {
	switch d.file.Format {
	case "nginx":
		return nginxConfLayers(d)
	case "envoy":
		return envoyLayers(d)
	case "grpc-service-config":
		return grpcLayers(d)
	case "resilience4j":
		return resilience4jLayers(d)
	case "aws-config":
		return awsLayers(d, cs)
	}
	switch d.kind {
	case "VirtualService":
		return istioLayers(d, cs)
	case "DestinationRule":
		_, err := readDestinationRule(d)
		return nil, err
	case "IngressClassParams":
		_, _, err := albClassParamsIdle(d)
		return nil, err
	case "Ingress":
		if isALBIngress(d.node) {
			return albLayers(d, cs)
		}
		return nginxLayers(d, cs)
	case "HTTPRoute", "GRPCRoute":
		return gatewayLayers(d, cs)
	case "ServiceProfile":
		return serviceProfileLayers(d)
	case "Service":
		return linkerdServiceLayers(d)
	case "Resiliency":
		return daprLayers(d)
	}
	return nil, nil
}

// layerCandidate is a layer a document offers, with what a via: entry may select it by.
type layerCandidate struct {
	layer *ChainLayer
	names []string
	hosts []string
	doc   *configDoc
}

// ViaRef is one entry of a dependency's via: — a layer read from a config file, selected by
// name or host — or {self: true}, where the dependency's own policy sits.
type ViaRef struct {
	Self bool
	File string // resolved against the check file's directory
	Name string
	Host string
	Pos  policy.Pos
	// Source names a call site instead ({source: app/Jobs/Sync.php, line: 42}): a source file
	// read in the same run, resolved like File, and the call's line (0 = every call of the
	// file); SourcePos and LinePos are where source: and line: are written, Field the entry's path (via[0]).
	Source    string
	Line      int
	SourcePos policy.Pos
	LinePos   policy.Pos
	Field     string
}

// resolve returns the layer a via: entry names.
func (cs *Configs) resolve(ref ViaRef) (*ChainLayer, error) {
	cf, err := cs.open(ref.File)
	if err != nil {
		msg := err.Error()
		if ref.Pos.File == StdinName && !filepath.IsAbs(ref.File) {
			if _, serr := os.Lstat(ref.File); errors.Is(serr, fs.ErrNotExist) {
				msg += " (" + stdinRelative() + ")"
			}
		}
		return nil, &scenario.Error{File: ref.Pos.File, Line: ref.Pos.Line, Col: ref.Pos.Col, Field: "via", Msg: msg}
	}
	var all, match []*layerCandidate
	for _, d := range cf.docs {
		cands, err := d.layers(cs)
		if err != nil {
			return nil, err
		}
		all = append(all, cands...)
	}
	for _, c := range all {
		if (ref.Name == "" || slices.Contains(c.names, ref.Name)) && (ref.Host == "" || slices.Contains(c.hosts, ref.Host)) {
			match = append(match, c)
		}
	}
	errAt := func(format string, a ...any) error {
		return &scenario.Error{File: ref.Pos.File, Line: ref.Pos.Line, Col: ref.Pos.Col, Field: "via", Msg: fmt.Sprintf(format, a...)}
	}
	switch {
	case len(match) == 0 && len(all) == 0:
		return nil, errAt("%s holds no layer that retries or times out (it has %s)", ref.File, strings.Join(cf.Kinds, ", "))
	case len(match) == 0:
		return nil, errAt("nothing in %s matches%s (it has %s)", ref.File, refText(ref), strings.Join(candidateNames(all), ", "))
	case len(match) > 1 && ref.Name == "" && ref.Host == "":
		return nil, errAt("%s holds %d layers (%s): name one with name: or host:", ref.File, len(match), strings.Join(candidateNames(match), ", "))
	}
	cs.used[match[0].doc] = true
	return match[0].layer, nil
}

// stdinRelative says where a via: path of a check file on standard input is looked for: a
// file piped in has no directory of its own.
func stdinRelative() string {
	wd, err := os.Getwd()
	if err != nil {
		return "a check file on standard input has no directory: its via: paths are relative to the working directory"
	}
	return "a check file on standard input has no directory: its via: paths are relative to the working directory, " + wd
}

func refText(ref ViaRef) string {
	s := ""
	if ref.Name != "" {
		s += " name " + strconv.Quote(ref.Name)
	}
	if ref.Host != "" {
		s += " host " + strconv.Quote(ref.Host)
	}
	return s
}

func candidateNames(cs []*layerCandidate) []string {
	var out []string
	for _, c := range cs {
		n := c.layer.Name
		if len(c.hosts) > 0 && !slices.Contains(c.names, c.hosts[0]) {
			n += " (host " + c.hosts[0] + ")"
		}
		out = append(out, n)
	}
	return out
}

// inferred returns a chain for every layer of the configs that no via: took: one layer each,
// with the layers that belong together already merged (a VirtualService with the
// DestinationRule of its host, an Ingress with the controller's ConfigMap).
func (cs *Configs) inferred() ([]*Chain, error) {
	var out []*Chain
	for _, cf := range cs.Files {
		for _, d := range cf.docs {
			if cs.used[d] {
				continue
			}
			cands, err := d.layers(cs)
			if err != nil {
				return nil, err
			}
			for _, c := range cands {
				out = append(out, &Chain{Dependency: c.layer.Name, Layers: []ChainLayer{*c.layer}})
			}
		}
	}
	return out, nil
}

// The helpers below read yaml.v3 nodes leniently: a Kubernetes resource has many fields
// check does not read, so only the values it reads are held to a type.

// get returns the value of key in mapping n (nil when n is no mapping or has no such key).
func get(n *yaml.Node, key string) *yaml.Node {
	n = scenario.ResolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return scenario.ResolveAlias(n.Content[i+1])
		}
	}
	return nil
}

// keyOf returns the key node of key in mapping n.
func keyOf(n *yaml.Node, key string) *yaml.Node {
	n = scenario.ResolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

// scalar is n's text, or "" when n is not a scalar.
func scalar(n *yaml.Node) string {
	n = scenario.ResolveAlias(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return ""
	}
	return n.Value
}

// items returns the items of a sequence (nil for anything else).
func items(n *yaml.Node) []*yaml.Node {
	n = scenario.ResolveAlias(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]*yaml.Node, 0, len(n.Content))
	for _, c := range n.Content {
		if c = scenario.ResolveAlias(c); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// pairs returns the keys and values of a mapping, in file order.
func pairs(n *yaml.Node) [][2]*yaml.Node {
	n = scenario.ResolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([][2]*yaml.Node, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, [2]*yaml.Node{n.Content[i], scenario.ResolveAlias(n.Content[i+1])})
	}
	return out
}

func posOf(cf *ConfigFile, n *yaml.Node) policy.Pos {
	if n == nil {
		return policy.Pos{File: cf.Path}
	}
	return policy.Pos{File: cf.Path, Line: n.Line, Col: n.Column}
}

// configError is an input error at n in a config file.
func configError(cf *ConfigFile, n *yaml.Node, field, format string, a ...any) error {
	p := posOf(cf, n)
	return &scenario.Error{File: cf.Path, Line: p.Line, Col: p.Col, Field: field, Msg: fmt.Sprintf(format, a...)}
}

// intField reads a whole number (a quoted one too: annotations are strings).
func intField(cf *ConfigFile, n *yaml.Node, field string, min int) (int, error) {
	s := strings.TrimSpace(scalar(n))
	v, err := strconv.Atoi(s)
	if err != nil || v < min || v > 1<<30 {
		return 0, configError(cf, n, field, "want a whole number ≥ %d, got %s", min, scenario.KindName(n))
	}
	return v, nil
}

// floatField reads a number (quoted too).
func floatField(cf *ConfigFile, n *yaml.Node, field string) (float64, error) {
	s := strings.TrimSpace(scalar(n))
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v != v || v > 1e12 {
		return 0, configError(cf, n, field, "want a number ≥ 0, got %s", scenario.KindName(n))
	}
	return v, nil
}

// goDuration reads a Go or protobuf JSON duration ("1.5s", "250ms", "1m").
func goDuration(cf *ConfigFile, n *yaml.Node, field string) (time.Duration, error) {
	s := strings.TrimSpace(scalar(n))
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, configError(cf, n, field, "want a duration such as 2s or 250ms, got %s", scenario.KindName(n))
	}
	return d, nil
}

// newLayer starts a layer at the resource's position with an empty policy.
func newLayer(kind, name string, at policy.Pos) *ChainLayer {
	return &ChainLayer{
		Kind: kind, Name: name, File: at.File, Line: at.Line, pos: at, retryAt: at,
		pol:   &policy.Policy{Name: name, Retry: policy.Retry{MaxAttempts: 1, Backoff: policy.BackoffNone, Jitter: policy.JitterNone}, Source: map[string]policy.Pos{}},
		retry: map[FailureClass]int{},
		checks: layerChecks{
			at: map[string]policy.Pos{},
		},
	}
}

// retryClasses sets the layer's attempts for each class in classes to attempts, and the
// policy's count and on: list to match.
func (l *ChainLayer) retryClasses(attempts int, classes []FailureClass) {
	l.pol.Retry.MaxAttempts = attempts
	l.pol.Retry.On = nil
	for _, c := range FailureClasses {
		if slices.Contains(classes, c) {
			l.retry[c] = attempts
			l.pol.Retry.On = append(l.pol.Retry.On, onWord(c))
		} else {
			delete(l.retry, c)
		}
	}
}

// onWord is a class in the policy's on: vocabulary (docs/design.md §4).
func onWord(c FailureClass) string {
	switch c {
	case Fail5xx:
		return "500"
	case Fail4xx:
		return "400"
	}
	return string(c)
}

// statusClasses maps HTTP statuses and ranges ("500-599", "5xx", "503") to classes.
func statusClasses(codes []string) []FailureClass {
	var out []FailureClass
	add := func(c FailureClass) {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	in := func(lo, hi, code int) bool { return lo <= code && code <= hi }
	for _, s := range codes {
		s = strings.TrimSpace(strings.ToLower(s))
		lo, hi := 0, 0
		switch {
		case s == "5xx":
			lo, hi = 500, 599
		case s == "4xx":
			lo, hi = 400, 499
		case strings.Contains(s, "-"):
			a, b, _ := strings.Cut(s, "-")
			lo, _ = strconv.Atoi(strings.TrimSpace(a))
			hi, _ = strconv.Atoi(strings.TrimSpace(b))
		default:
			lo, _ = strconv.Atoi(s)
			hi = lo
		}
		if lo == 0 || hi < lo {
			continue
		}
		if in(lo, hi, 500) {
			add(Fail5xx)
		}
		if in(lo, hi, 503) {
			add(Fail503)
		}
		if in(lo, hi, 429) {
			add(Fail429)
		}
		if in(lo, hi, 400) {
			add(Fail4xx)
		}
	}
	return out
}

func classesText(cs []FailureClass) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = string(c)
	}
	return strings.Join(parts, ", ")
}

// splitList splits a comma- or space-separated list.
func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

// layerChecks are what the catalogue's layer rules read beyond the policy: where each rule's
// finding points, and the format's words for it.
type layerChecks struct {
	// at maps a rule ID to where its finding points (the value, or the resource that left it
	// to a default); words maps a rule ID to the format's own sentence for it.
	at    map[string]policy.Pos
	words map[string]string
	// noTimeout is set when the layer has no timeout at all (PT001), in the format's words.
	noTimeout string
	// noBudget is set when the layer retries without a retry budget or breaker it could
	// have (PT012), in the format's words.
	noBudget string
	// tryTime is the longest one try takes when the dependency hangs (connect + read for
	// nginx), for PT004; 0 = the policy's timeout.
	tryTime time.Duration
	// tryText renders tryTime in the format's words: "(5 s connect + 1 min read)".
	tryText string
	// stream are the layer's timeouts that can cut a stream, for PT017 (stream_rules.go).
	stream []streamBound
}

func (l *ChainLayer) setAt(rule string, p policy.Pos) {
	if p.Line > 0 {
		l.checks.at[rule] = p
	}
}

func (l *ChainLayer) atFor(rule string) policy.Pos {
	if p, ok := l.checks.at[rule]; ok {
		return p
	}
	return l.pos
}

func (l *ChainLayer) say(rule, words string) {
	if l.checks.words == nil {
		l.checks.words = map[string]string{}
	}
	l.checks.words[rule] = words
}

func (l *ChainLayer) addDefault(format string, a ...any) {
	l.Defaults = append(l.Defaults, fmt.Sprintf(format, a...))
}
