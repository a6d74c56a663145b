package check

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/internal/nginxconf"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// nginx configuration (format "nginx", docs/formats.md#nginx-configuration): an nginx.conf
// with the files it includes, or a file of server blocks (conf.d/*.conf, sites-enabled/*).
// Each location that proxy_passes is a layer; its settings are what nginx merges into it
// from http, server and the enclosing locations (nginx/nginx
// src/http/modules/ngx_http_proxy_module.c, ngx_http_proxy_merge_loc_conf: a directive
// written at a level replaces the one inherited, proxy_next_upstream included), mapped
// onto the layer as ingress-nginx's keys are (nginxApply). Its tries are bounded by the
// upstream's servers: nginx tries each at most once (src/http/ngx_http_upstream_round_robin.c,
// ngx_http_upstream_tries).

var nginxConfWords = nginxWords{
	kind: "nginx", fallback: "nginx default", where: "this location",
	key: func(k string) string { return strings.ReplaceAll(k, "-", "_") },
}

// nginxConfDefaults are nginx's own defaults for the directives check reads.
var nginxConfDefaults = map[string]string{
	"proxy_connect_timeout":       "60s",
	"proxy_read_timeout":          "60s",
	"proxy_send_timeout":          "60s",
	"proxy_next_upstream_timeout": "0",
	"proxy_next_upstream_tries":   "0 (no limit)",
	"proxy_next_upstream":         nginxDefaultNext,
}

// nginxMark is the evidence that a .conf that nginx's grammar cannot read is nginx
// configuration with a mistake, not another program's file: a directive only nginx has,
// ended by ';', or a location or upstream block.
var nginxMark = regexp.MustCompile(`(?m)^[ \t]*(?:(?:proxy_pass|proxy_(?:connect|read|send)_timeout|proxy_next_upstream(?:_tries|_timeout)?|server_name|worker_processes|worker_connections)[ \t]+[^;\n]*;|location[ \t]+(?:=|~\*?|\^~)?[ \t]*[/@][^\n{;]*\{|upstream[ \t]+[\w.-]+[ \t]*\{)`)

// nginxTemplate is a Helm or Jinja template's expression: a file holding one is rendered
// into nginx configuration, not read by nginx.
var nginxTemplate = regexp.MustCompile(`\{\{.*\}\}|\{%.*%\}`)

// isNginxConf says whether ParseConfig reads data as nginx configuration: a file named
// nginx.conf, or a .conf (or a file with no extension: sites-enabled/default) that nginx's
// grammar reads and that has nginx's blocks or directives. A .conf nginx's grammar cannot
// read is nginx's only when it carries nginxMark; else it is another program's .conf and
// is left to the other readers, and then skipped with the reason.
func isNginxConf(path string, data []byte) bool {
	if nginxByName(path) {
		return true
	}
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".conf" && ext != "" {
		return false
	}
	ds, err := nginxconf.Parse(path, data)
	if err != nil {
		return ext == ".conf" && nginxMark.Match(data)
	}
	return nginxEvidence(ds)
}

func nginxByName(path string) bool { return strings.EqualFold(filepath.Base(path), "nginx.conf") }

// nginxEvidence says whether parsed directives are nginx's: its contexts as blocks, or a
// directive only nginx has.
func nginxEvidence(ds []*nginxconf.Directive) bool {
	for _, d := range ds {
		switch {
		case d.Block && (d.Name == "http" || d.Name == "events" || d.Name == "stream" || (d.Name == "server" && len(d.Args) == 0) ||
			(d.Name == "upstream" && len(d.Args) == 1) || (d.Name == "location" && len(d.Args) > 0)):
			return true
		case !d.Block && (strings.HasPrefix(d.Name, "proxy_") || d.Name == "server_name" || d.Name == "worker_processes" ||
			d.Name == "fastcgi_pass" || d.Name == "uwsgi_pass" || d.Name == "grpc_pass"):
			return true
		}
		if d.Body != nil && nginxEvidence(d.Body) {
			return true
		}
	}
	return false
}

// nginxMainMark is a main configuration's http or events block.
var nginxMainMark = regexp.MustCompile(`(?m)^[ \t]*(?:http|events)[ \t]*\{`)

// nginxRank orders the configurations met: files named nginx.conf first, then the others
// with an http block, then files of server blocks.
func nginxRank(path string, data []byte) int {
	switch {
	case nginxByName(path):
		return 0
	case nginxMainMark.Match(data):
		return 1
	}
	return 2
}

// nginxInstallPrefixes are where nginx packages keep their configuration. An absolute include
// under one of them names the file beside the main configuration being read — the copy kept
// in the repository — unless that is where the main configuration lives.
var nginxInstallPrefixes = []string{"/etc/nginx/", "/usr/local/nginx/conf/", "/usr/local/etc/nginx/", "/opt/homebrew/etc/nginx/", "/etc/openresty/", "/usr/local/openresty/nginx/conf/"}

// nginxStockFiles are the files nginx (conf/ of its source) and Debian's package ship beside
// nginx.conf: none sets a proxy timeout or retry. An include of one that is absent is left
// out with a note rather than refused.
var nginxStockFiles = []string{"mime.types", "fastcgi_params", "fastcgi.conf", "scgi_params", "uwsgi_params", "koi-utf", "koi-win", "win-utf", "proxy_params", "fastcgi-php.conf", "snakeoil.conf"}

// nginxPrefix is the directory a configuration's relative includes are read from: nginx's
// conf prefix, the directory of nginx.conf. A file of server blocks is read from the nearest
// directory (its own or up to three above) that holds an nginx.conf, else its own.
func nginxPrefix(path string) string {
	dir := filepath.Dir(path)
	if nginxByName(path) || path == StdinName {
		return dir
	}
	for d, i := dir, 0; i < 4; d, i = filepath.Dir(d), i+1 {
		if st, err := os.Stat(filepath.Join(d, "nginx.conf")); err == nil && st.Mode().IsRegular() {
			return d
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return dir
}

// nginxLoader reads path's includes as nginx would from prefix, bounded; ignores collects
// each included file's `# patience:ignore` comments.
func nginxLoader(prefix string, ignores map[string]map[int]map[string]bool) *nginxconf.Loader {
	abs, _ := filepath.Abs(prefix)
	return &nginxconf.Loader{
		Prefix: prefix,
		ReadFile: func(p string) ([]byte, error) {
			data, err := readBounded(p)
			if err == nil {
				ignores[p] = parseIgnores(data)
			}
			return data, err
		},
		Rebase: func(p string) string {
			for _, ip := range nginxInstallPrefixes {
				if strings.HasPrefix(p, ip) && abs+"/" != ip {
					return filepath.Join(prefix, strings.TrimPrefix(p, ip))
				}
			}
			return ""
		},
		Absent: func(p string) (string, bool) {
			if slices.Contains(nginxStockFiles, filepath.Base(p)) {
				return "not found: taken as the file nginx ships, which sets no proxy timeout or retry", true
			}
			return "", false
		},
		MaxFiles: 1000,
		MaxBytes: 4 * maxFileSize,
	}
}

// nginxLoc is one location that proxy_passes: a layer.
type nginxLoc struct {
	scope *nginxScope
	// file is the file the location is written in (an included one, maybe).
	file         string
	name         string
	names, hosts []string
	// servers bound the tries (0 = none: a variable and proxy_next_upstream_tries);
	// serversWhy says so; variable marks a proxy_pass through a variable.
	servers    int
	serversWhy string
	notes      []string
	breaker    *policy.Breaker
}

// readNginxConf reads an nginx configuration and the files it includes: a layer per location
// that proxy_passes. A file with none is skipped with the reason; one nginx would refuse, or
// with a value check cannot read, is an error at its FILE:LINE:COL.
func readNginxConf(path string, data []byte) (*ConfigFile, string, error) {
	if m := nginxTemplate.FindIndex(data); m != nil {
		line := 1 + strings.Count(string(data[:m[0]]), "\n")
		return nil, fmt.Sprintf("an nginx configuration template ({{ … }} at line %d): check reads the configuration it renders", line), nil
	}
	cf := &ConfigFile{Path: path, Format: "nginx", ignores: parseIgnores(data), includeIgnores: map[string]map[int]map[string]bool{}}
	cfg, err := nginxLoader(nginxPrefix(path), cf.includeIgnores).Load(path, data)
	if err != nil {
		return nil, "", nginxInputError(err)
	}
	cf.Includes = cfg.Included
	for _, f := range cfg.Included {
		cf.includeReal = append(cf.includeReal, realPath(f))
	}
	for _, n := range cfg.Notes {
		cf.Notes = append(cf.Notes, fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Text))
	}
	r := &nginxConfReader{cf: cf, upstreams: map[string]*nginxUpstream{}}
	if err := r.read(cfg.Directives); err != nil {
		return nil, "", err
	}
	if len(cf.docs) == 0 {
		return nil, "nginx configuration with no location that proxy_passes: nothing check reads (a snippet is read through the nginx.conf that includes it; fastcgi_pass, uwsgi_pass and grpc_pass are not read)", nil
	}
	for _, d := range cf.docs {
		cf.Kinds = append(cf.Kinds, "location/"+d.name)
	}
	return cf, "", nil
}

// nginxInputError is a parse or include error as check's input error.
func nginxInputError(err error) error {
	var ne *nginxconf.Error
	if !errors.As(err, &ne) {
		return err
	}
	var stopped *input.StoppedError
	if errors.As(ne.Err, &stopped) {
		return stopped // Ctrl-C while an include was read
	}
	return &scenario.Error{File: ne.File, Line: ne.Line, Col: ne.Col, Msg: ne.Msg}
}

// realPath is path with its symlinks resolved, absolute: how a file is known once.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	if a, err := filepath.Abs(path); err == nil {
		path = a
	}
	return path
}

// nginxConfLayers builds a location's layer.
func nginxConfLayers(d *configDoc) ([]*layerCandidate, error) {
	loc := d.nginx
	l := newLayer("nginx", d.name, d.pos)
	nginxApply(l, loc.settings(), nginxConfWords)
	for _, n := range loc.notes {
		l.addDefault("%s", n)
	}
	l.pol.Breaker = loc.breaker
	return []*layerCandidate{{layer: l, names: loc.names, hosts: loc.hosts, doc: d}}, nil
}

// settings are the location's settings: each directive from the nearest level that writes
// it, else nginx's default.
func (loc *nginxLoc) settings() *nginxSettings {
	setting := func(key string) (nginxSetting, *nginxValueConf) {
		v, sc := loc.scope.lookup(key)
		if v == nil {
			return nginxSetting{text: nginxConfDefaults[key]}, nil
		}
		return nginxSetting{text: v.text, at: v.pos, from: sc.where}, v
	}
	dur := func(key string) nginxDuration {
		s, v := setting(key)
		out := nginxDuration{nginxSetting: s}
		switch {
		case v != nil:
			out.d = v.d
		default:
			out.d, _ = nginxconf.ParseTime(s.text, false)
		}
		return out
	}
	s := &nginxSettings{
		connect: dur("proxy_connect_timeout"), read: dur("proxy_read_timeout"), nextTimeout: dur("proxy_next_upstream_timeout"),
		servers: loc.servers, serversWhy: loc.serversWhy,
	}
	s.next, _ = setting("proxy_next_upstream")
	var tv *nginxValueConf
	s.tries.nginxSetting, tv = setting("proxy_next_upstream_tries")
	if tv != nil {
		s.tries.n = tv.n
	}
	return s
}

// nginxScope is one level's settings (http, server, location): the directives it writes,
// over its parent's.
type nginxScope struct {
	parent *nginxScope
	where  string // "http", "server shop.example.com", "location /api/"
	vals   map[string]*nginxValueConf
}

// nginxValueConf is one directive's value at a level.
type nginxValueConf struct {
	text string
	pos  policy.Pos
	d    time.Duration
	n    int
}

func (sc *nginxScope) lookup(key string) (*nginxValueConf, *nginxScope) {
	for s := sc; s != nil; s = s.parent {
		if v, ok := s.vals[key]; ok {
			return v, s
		}
	}
	return nil, nil
}

// nginxUpstream is an upstream block: its servers.
type nginxUpstream struct {
	name    string
	servers []nginxServer
	// lua is set when a Lua balancer picks the servers (OpenResty's balancer_by_lua_*,
	// ingress-nginx's upstream_balancer): it tries as many as it likes, up to
	// proxy_next_upstream_tries, whatever the servers listed.
	lua bool
}

type nginxServer struct {
	addr         string
	backup, down bool
	maxFails     int
	failTimeout  time.Duration
	written      bool // max_fails or fail_timeout written
}

// nginxConfReader reads one configuration's directives into its file's documents.
type nginxConfReader struct {
	cf        *ConfigFile
	upstreams map[string]*nginxUpstream
}

func posOfDirective(d *nginxconf.Directive) policy.Pos {
	return policy.Pos{File: d.File, Line: d.Line, Col: d.Col}
}

func nginxErrorAt(d *nginxconf.Directive, format string, a ...any) error {
	return &scenario.Error{File: d.File, Line: d.Line, Col: d.Col, Field: d.Name, Msg: fmt.Sprintf(format, a...)}
}

// read walks the configuration: the http block of a main configuration; else a file of
// server blocks as the http level, or a file of locations as one server's.
func (r *nginxConfReader) read(top []*nginxconf.Directive) error {
	if err := r.collectUpstreams(top, 0); err != nil {
		return err
	}
	var https []*nginxconf.Directive
	for _, d := range top {
		if d.Name == "http" && d.Block {
			https = append(https, d)
		}
	}
	switch {
	case len(https) > 0:
		for _, h := range https {
			sc, err := r.scope(h.Body, nil, "http", true)
			if err != nil {
				return err
			}
			if err := r.httpLevel(h.Body, sc, true); err != nil {
				return err
			}
		}
	case hasBlock(top, "location") && !hasBlock(top, "server"):
		sc, err := r.scope(top, nil, "server", true)
		if err != nil {
			return err
		}
		return r.serverLevel(top, sc, "", nil, false)
	default:
		sc, err := r.scope(top, nil, "http", true)
		if err != nil {
			return err
		}
		return r.httpLevel(top, sc, false)
	}
	return nil
}

func hasBlock(ds []*nginxconf.Directive, name string) bool {
	return slices.ContainsFunc(ds, func(d *nginxconf.Directive) bool { return d.Block && d.Name == name })
}

// collectUpstreams reads the upstream blocks of the main level and of http.
func (r *nginxConfReader) collectUpstreams(ds []*nginxconf.Directive, depth int) error {
	for _, d := range ds {
		switch {
		case d.Name == "http" && d.Block && depth == 0:
			if err := r.collectUpstreams(d.Body, 1); err != nil {
				return err
			}
		case d.Name == "upstream" && d.Block:
			if err := r.upstream(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// upstream reads an upstream block's servers (ngx_http_upstream_server): max_fails defaults
// to 1, fail_timeout to 10s, backup servers are tried too, down ones never.
func (r *nginxConfReader) upstream(d *nginxconf.Directive) error {
	if len(d.Args) != 1 {
		return nginxErrorAt(d, "want one name: upstream NAME { server ADDRESS; }")
	}
	key := strings.ToLower(d.Args[0])
	if _, dup := r.upstreams[key]; dup {
		return nginxErrorAt(d, "duplicate upstream %q", d.Args[0])
	}
	up := &nginxUpstream{name: d.Args[0]}
	for _, s := range d.Body {
		if strings.HasPrefix(s.Name, "balancer_by_lua") {
			up.lua = true
		}
		if s.Name != "server" || s.Block {
			continue
		}
		if len(s.Args) == 0 {
			return nginxErrorAt(s, "want an address: server ADDRESS [PARAMETERS];")
		}
		srv := nginxServer{addr: s.Args[0], maxFails: 1, failTimeout: 10 * time.Second}
		for i, p := range s.Args[1:] {
			at := s.ArgPos[i+1]
			bad := func(what string) error {
				return &scenario.Error{File: at.File, Line: at.Line, Col: at.Col, Field: "server", Msg: fmt.Sprintf("invalid parameter %q: want %s", p, what)}
			}
			switch {
			case p == "backup":
				srv.backup = true
			case p == "down":
				srv.down = true
			case strings.HasPrefix(p, "max_fails="):
				n, ok := nginxconf.Atoi(strings.TrimPrefix(p, "max_fails="))
				if !ok {
					return bad("max_fails=N, a whole number")
				}
				srv.maxFails, srv.written = n, true
			case strings.HasPrefix(p, "fail_timeout="):
				t, ok := nginxconf.ParseTime(strings.TrimPrefix(p, "fail_timeout="), true)
				if !ok {
					return bad("fail_timeout=TIME such as 10s or 1m")
				}
				srv.failTimeout, srv.written = t, true
			}
		}
		up.servers = append(up.servers, srv)
	}
	if len(up.servers) == 0 {
		return nginxErrorAt(d, "no servers in upstream %q", d.Args[0])
	}
	r.upstreams[key] = up
	return nil
}

// nginxSettingKeys are the directives read at every level, each with its reader.
var nginxSettingKeys = map[string]func(d *nginxconf.Directive, v *nginxValueConf) error{
	"proxy_connect_timeout":       nginxTimeValue,
	"proxy_read_timeout":          nginxTimeValue,
	"proxy_send_timeout":          nginxTimeValue,
	"proxy_next_upstream_timeout": nginxTimeValue,
	"proxy_next_upstream_tries": func(d *nginxconf.Directive, v *nginxValueConf) error {
		n, ok := nginxconf.Atoi(d.Args[0])
		if !ok {
			return nginxArgError(d, 0, "want a whole number (0 = no limit)")
		}
		v.n = n
		return nil
	},
	"proxy_next_upstream": func(d *nginxconf.Directive, v *nginxValueConf) error {
		for i, a := range d.Args {
			if !slices.Contains(nginxNextUpstreamTokens, a) {
				return nginxArgError(d, i, "want %s", strings.Join(nginxNextUpstreamTokens, ", "))
			}
		}
		return nil
	},
}

func nginxTimeValue(d *nginxconf.Directive, v *nginxValueConf) error {
	t, ok := nginxconf.ParseTime(d.Args[0], false)
	if !ok {
		return nginxArgError(d, 0, "want a time such as 30s, 1m or 500ms (a number alone is seconds)")
	}
	v.d = t
	return nil
}

func nginxArgError(d *nginxconf.Directive, i int, format string, a ...any) error {
	arg, at := d.Arg(i)
	return &scenario.Error{File: at.File, Line: at.Line, Col: at.Col, Field: d.Name, Msg: fmt.Sprintf("invalid value %q: ", arg) + fmt.Sprintf(format, a...)}
}

// scope reads the settings one level writes. allowed is false inside an if or limit_except
// block, where nginx refuses them. Each directive but proxy_next_upstream may be written once
// per level; proxy_next_upstream's values add up (ngx_conf_set_bitmask_slot).
func (r *nginxConfReader) scope(ds []*nginxconf.Directive, parent *nginxScope, where string, allowed bool) (*nginxScope, error) {
	sc := &nginxScope{parent: parent, where: where, vals: map[string]*nginxValueConf{}}
	for _, d := range ds {
		read, ok := nginxSettingKeys[d.Name]
		if !ok || d.Block {
			continue
		}
		if !allowed {
			return nil, nginxErrorAt(d, "not allowed here: nginx takes it in http, server or location")
		}
		if len(d.Args) == 0 || (d.Name != "proxy_next_upstream" && len(d.Args) != 1) {
			return nil, nginxErrorAt(d, "invalid number of arguments")
		}
		v := &nginxValueConf{text: strings.Join(d.Args, " "), pos: posOfDirective(d)}
		if err := read(d, v); err != nil {
			return nil, err
		}
		prev, dup := sc.vals[d.Name]
		switch {
		case dup && d.Name == "proxy_next_upstream":
			prev.text += " " + v.text
		case dup:
			return nil, nginxErrorAt(d, "directive is duplicate (first at %d:%d)", prev.pos.Line, prev.pos.Col)
		default:
			sc.vals[d.Name] = v
		}
	}
	return sc, nil
}

// httpLevel reads the server blocks of an http level. strict says it is a real http block,
// where proxy_pass is refused in it and in its servers; a file of server blocks may be
// stream {} configuration, whose servers proxy_pass (not read).
func (r *nginxConfReader) httpLevel(ds []*nginxconf.Directive, sc *nginxScope, strict bool) error {
	for _, d := range ds {
		switch {
		case d.Name == "server" && d.Block:
			label, hosts := nginxServerLabel(d.Body)
			where := "server"
			if label != "" {
				where += " " + label
			}
			ssc, err := r.scope(d.Body, sc, where, true)
			if err != nil {
				return err
			}
			if err := r.serverLevel(d.Body, ssc, label, hosts, strict); err != nil {
				return err
			}
		case d.Name == "proxy_pass" && strict:
			return nginxErrorAt(d, "not allowed here: nginx takes proxy_pass in a location, an if in a location, or limit_except")
		}
	}
	return nil
}

// nginxServerLabel names a server block: its first server_name that is neither empty, "_"
// nor a regular expression, else its first listen; hosts are its server names.
func nginxServerLabel(ds []*nginxconf.Directive) (label string, hosts []string) {
	listen := ""
	for _, d := range ds {
		switch d.Name {
		case "server_name":
			for _, a := range d.Args {
				if a != "" && a != "_" && !strings.HasPrefix(a, "~") {
					hosts = append(hosts, a)
				}
			}
		case "listen":
			if listen == "" && len(d.Args) > 0 {
				listen = d.Args[0]
			}
		}
	}
	if len(hosts) > 0 {
		return hosts[0], hosts
	}
	if _, ok := nginxconf.Atoi(listen); ok {
		listen = ":" + listen
	}
	return listen, nil
}

// serverLevel reads a server block's locations.
func (r *nginxConfReader) serverLevel(ds []*nginxconf.Directive, sc *nginxScope, label string, hosts []string, strict bool) error {
	for _, d := range ds {
		switch {
		case d.Name == "location" && d.Block:
			if err := r.location(d, sc, label, hosts); err != nil {
				return err
			}
		case d.Name == "if" && d.Block:
			if _, err := r.scope(d.Body, sc, "if", false); err != nil {
				return err
			}
			if p := findDirective(d.Body, "proxy_pass"); p != nil {
				return nginxErrorAt(p, "not allowed here: nginx takes proxy_pass in a location, an if in a location, or limit_except")
			}
		case d.Name == "proxy_pass" && strict:
			return nginxErrorAt(d, "not allowed here: nginx takes proxy_pass in a location, an if in a location, or limit_except")
		}
	}
	return nil
}

func findDirective(ds []*nginxconf.Directive, name string) *nginxconf.Directive {
	for _, d := range ds {
		if d.Name == name && !d.Block {
			return d
		}
	}
	return nil
}

// proxyPass is the proxy_pass of a level, refusing a second one.
func proxyPass(ds []*nginxconf.Directive) (*nginxconf.Directive, error) {
	var p *nginxconf.Directive
	for _, d := range ds {
		if d.Name != "proxy_pass" || d.Block {
			continue
		}
		if p != nil {
			return nil, nginxErrorAt(d, "directive is duplicate (first at %d:%d)", p.Line, p.Col)
		}
		if len(d.Args) != 1 {
			return nil, nginxErrorAt(d, "invalid number of arguments: want proxy_pass URL")
		}
		p = d
	}
	return p, nil
}

// location reads a location: a layer when it proxy_passes, another for each if or
// limit_except in it that does, and its nested locations.
func (r *nginxConfReader) location(d *nginxconf.Directive, parent *nginxScope, label string, hosts []string) error {
	path := strings.Join(d.Args, " ")
	sc, err := r.scope(d.Body, parent, "location "+path, true)
	if err != nil {
		return err
	}
	p, err := proxyPass(d.Body)
	if err != nil {
		return err
	}
	if p != nil {
		r.addLayer(d, p, sc, label, path, hosts)
	}
	for _, c := range d.Body {
		switch {
		case c.Name == "location" && c.Block:
			if err := r.location(c, sc, label, hosts); err != nil {
				return err
			}
		case (c.Name == "if" || c.Name == "limit_except") && c.Block:
			if _, err := r.scope(c.Body, sc, c.Name, false); err != nil {
				return err
			}
			cp, err := proxyPass(c.Body)
			if err != nil {
				return err
			}
			if cp != nil {
				r.addLayer(c, cp, sc, label, path+" "+c.Name+" "+strings.Join(c.Args, " "), hosts)
			}
		}
	}
	return nil
}

// addLayer adds the document of one location that proxy_passes.
func (r *nginxConfReader) addLayer(at, pass *nginxconf.Directive, sc *nginxScope, label, path string, hosts []string) {
	name := path
	if label != "" {
		name = label + " " + path
	}
	loc := &nginxLoc{scope: sc, file: at.File, name: name, names: []string{name, path}, hosts: hosts}
	r.bound(loc, pass.Args[0])
	r.cf.docs = append(r.cf.docs, &configDoc{file: r.cf, name: name, pos: posOfDirective(at), nginx: loc})
}

// bound sets the servers a proxy_pass tries: each server of the upstream block it names
// once (down ones never, backup ones too), one for an address of its own. A name that
// resolves to several addresses is tried once per address: counted as one, and said so.
// A variable may name any upstream: counted as the largest.
func (r *nginxConfReader) bound(loc *nginxLoc, target string) {
	if strings.Contains(target, "$") {
		most := 1
		for _, key := range slices.Sorted(maps.Keys(r.upstreams)) {
			up := r.upstreams[key]
			if up.lua {
				loc.notes = append(loc.notes, fmt.Sprintf("nginx: proxy_pass %s may name upstream %s, whose Lua balancer tries up to proxy_next_upstream_tries", target, up.name))
				return
			}
			most = max(most, nginxTries(up))
		}
		loc.servers = most
		loc.serversWhy = fmt.Sprintf("%s: proxy_pass %s names a variable, counted as the largest upstream here", countNoun(float64(most), "server", "servers"), target)
		loc.notes = append(loc.notes, fmt.Sprintf("nginx: proxy_pass %s: its servers are not known before a request; counted as %d", target, most))
		return
	}
	host := nginxHost(target)
	if up, ok := r.upstreams[strings.ToLower(host)]; ok && host != "" && up.lua {
		loc.names = append(loc.names, up.name)
		loc.notes = append(loc.notes, fmt.Sprintf("nginx: upstream %s picks its servers in Lua (balancer_by_lua): its tries are bounded by proxy_next_upstream_tries only", up.name))
		return
	}
	if up, ok := r.upstreams[strings.ToLower(host)]; ok && host != "" {
		loc.names = append(loc.names, up.name)
		n := nginxTries(up)
		loc.servers = n
		loc.serversWhy = fmt.Sprintf("each of the %s of upstream %s once", countNoun(float64(n), "server", "servers"), up.name)
		if n == 1 {
			loc.serversWhy = fmt.Sprintf("the one server of upstream %s", up.name)
		}
		for _, s := range up.servers {
			if !s.down && nginxHostName(s.addr) {
				loc.notes = append(loc.notes, fmt.Sprintf("nginx: server %s of upstream %s counted as one address (a name that resolves to several is tried once per address)", s.addr, up.name))
			}
		}
		loc.breaker = nginxPassive(up, loc)
		return
	}
	loc.servers = 1
	loc.serversWhy = "one server: " + target
	if nginxHostName(target) {
		loc.notes = append(loc.notes, fmt.Sprintf("nginx: proxy_pass %s counted as one address (a name that resolves to several is tried once per address)", target))
	}
}

// nginxTries is how many servers of an upstream a request may try: ngx_http_upstream_tries,
// the servers not down, backups included.
func nginxTries(up *nginxUpstream) int {
	n := 0
	for _, s := range up.servers {
		if !s.down {
			n++
		}
	}
	return max(n, 1)
}

// nginxPassive is an upstream's passive health check as the layer's breaker: max_fails
// failures within fail_timeout take a server out for fail_timeout. nginx ignores it for a
// group of one server, and max_fails=0 turns it off.
func nginxPassive(up *nginxUpstream, loc *nginxLoc) *policy.Breaker {
	if nginxTries(up) < 2 {
		return nil
	}
	written := false
	var b *policy.Breaker
	for _, s := range up.servers {
		written = written || s.written
		if !s.down && s.maxFails > 0 && b == nil {
			b = &policy.Breaker{MinRequests: s.maxFails, Window: s.failTimeout, OpenFor: s.failTimeout}
		}
	}
	if !written {
		loc.notes = append(loc.notes, "nginx default: max_fails=1 fail_timeout=10s (a server that fails is left out for 10 s)")
	}
	return b
}

// nginxHost is the host of a proxy_pass URL, or "" for a UNIX socket.
func nginxHost(target string) string {
	u := target
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if strings.HasPrefix(u, "unix:") {
		return ""
	}
	if i := strings.IndexByte(u, '/'); i >= 0 {
		u = u[:i]
	}
	if h, _, err := net.SplitHostPort(u); err == nil {
		return h
	}
	return strings.Trim(u, "[]")
}

// nginxHostName says whether a server address is a name to resolve (not an IP address nor
// a UNIX socket).
func nginxHostName(addr string) bool {
	if strings.HasPrefix(addr, "unix:") {
		return false
	}
	h := nginxHost(addr)
	return h != "" && net.ParseIP(h) == nil
}

// includedView is the part of an nginx configuration written in one of the files it
// includes: the locations of that file, with what they inherit from the configuration.
func (cf *ConfigFile) includedView(path string) *ConfigFile {
	v := &ConfigFile{Path: path, Format: cf.Format}
	real := realPath(path)
	for _, d := range cf.docs {
		if d.nginx != nil && realPath(d.nginx.file) == real {
			v.docs = append(v.docs, d)
			v.Kinds = append(v.Kinds, "location/"+d.name)
		}
	}
	return v
}
