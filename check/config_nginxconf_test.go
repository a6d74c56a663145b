package check

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// nginxConfLayer reads conf as dir/nginx.conf (with files beside it) and returns the layer
// of the location named name.
func nginxConfLayer(t *testing.T, conf, name string, files map[string]string) *ChainLayer {
	t.Helper()
	dir := t.TempDir()
	for f, body := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "nginx.conf")
	cf, reason, err := readNginxConf(path, []byte(conf))
	if err != nil || cf == nil {
		t.Fatalf("readNginxConf: %v %s", err, reason)
	}
	var names []string
	for _, d := range cf.docs {
		cands, err := d.layers(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cands {
			if c.layer.Name == name {
				return c.layer
			}
			names = append(names, c.layer.Name)
		}
	}
	t.Fatalf("no layer %q (have %q)", name, names)
	return nil
}

// nginxAttempts is the layer's attempts per class, in FailureClasses order.
func nginxAttempts(l *ChainLayer) []int {
	out := make([]int, len(FailureClasses))
	for i, c := range FailureClasses {
		out[i] = l.retryOf(c)
	}
	return out
}

// TestNginxConfMapping: an nginx.conf's proxy settings as nginx merges them into a location
// (ngx_http_proxy_merge_loc_conf), mapped as ingress-nginx's are: defaults, inheritance
// (a level's proxy_next_upstream replaces the one above, never adds to it), time units,
// tries against the upstream's servers, and non_idempotent.
func TestNginxConfMapping(t *testing.T) {
	const ups = `
    upstream three { server 10.0.0.1:80; server 10.0.0.2:80; server 10.0.0.3:80; }
    upstream backup { server 10.0.0.1:80; server 10.0.0.2:80 down; server 10.0.0.3:80 backup; }
    upstream one { server 10.0.0.1:80 max_fails=3 fail_timeout=30s; }
    upstream lua { server 0.0.0.1; balancer_by_lua_block { balancer.balance() } }
`
	conf := func(http, loc string) string {
		return "events {}\nhttp {\n" + ups + http + "\n  server {\n    server_name shop.example.com;\n    location /api/ {\n" + loc + "\n    }\n  }\n}\n"
	}
	//                      connect reset timeout 5xx 503 429 4xx
	for _, tc := range []struct {
		name, http, loc string
		attempts        []int
		connect, read   time.Duration
		deadline        time.Duration
		always          bool
		defaults        []string // each must be listed
	}{
		{
			name: "defaults", loc: "proxy_pass http://three;",
			attempts: []int{3, 3, 3, 1, 1, 1, 1}, connect: 60 * time.Second, read: 60 * time.Second,
			defaults: []string{"nginx default: proxy_connect_timeout 60s", "nginx default: proxy_read_timeout 60s", "nginx default: proxy_next_upstream_timeout 0", "nginx default: proxy_next_upstream_tries 0 (no limit)", `nginx default: proxy_next_upstream "error timeout"`, "nginx default: max_fails=1 fail_timeout=10s (a server that fails is left out for 10 s)"},
		},
		{
			name: "inherited from http", http: "proxy_next_upstream error timeout http_503 http_429; proxy_connect_timeout 2s; proxy_read_timeout 1m30s;",
			loc:      "proxy_pass http://three;",
			attempts: []int{3, 3, 3, 1, 3, 3, 1}, connect: 2 * time.Second, read: 90 * time.Second,
		},
		{
			name: "a location's proxy_next_upstream replaces http's", http: "proxy_next_upstream error timeout http_503 http_429;",
			loc:      "proxy_next_upstream http_503;\nproxy_pass http://three;",
			attempts: []int{1, 1, 1, 1, 3, 1, 1}, connect: 60 * time.Second, read: 60 * time.Second,
		},
		{
			name: "off anywhere is off", http: "proxy_next_upstream error timeout;",
			loc:      "proxy_next_upstream http_503 off;\nproxy_pass http://three;",
			attempts: []int{1, 1, 1, 1, 1, 1, 1}, connect: 60 * time.Second, read: 60 * time.Second,
		},
		{
			name: "two lines at one level add up", loc: "proxy_next_upstream error;\nproxy_next_upstream http_500 http_404;\nproxy_pass http://three;",
			attempts: []int{3, 3, 1, 3, 1, 1, 3}, connect: 60 * time.Second, read: 60 * time.Second,
		},
		{
			name: "units: a number is seconds, ms", loc: "proxy_connect_timeout 500ms;\nproxy_read_timeout 30;\nproxy_next_upstream_timeout 1m;\nproxy_pass http://three;",
			attempts: []int{3, 3, 3, 1, 1, 1, 1}, connect: 500 * time.Millisecond, read: 30 * time.Second, deadline: time.Minute,
		},
		{
			name: "tries below the servers", loc: "proxy_next_upstream_tries 2;\nproxy_pass http://three;",
			attempts: []int{2, 2, 2, 1, 1, 1, 1}, connect: 60 * time.Second, read: 60 * time.Second,
		},
		{
			name: "tries above the servers", http: "proxy_next_upstream_tries 5;", loc: "proxy_pass http://three/api/;",
			attempts: []int{3, 3, 3, 1, 1, 1, 1}, connect: 60 * time.Second, read: 60 * time.Second,
		},
		{
			name: "backup tried, down never", loc: "proxy_pass http://backup;",
			attempts: []int{2, 2, 2, 1, 1, 1, 1}, connect: 60 * time.Second, read: 60 * time.Second,
		},
		{
			name: "one server: no retry", loc: "proxy_pass http://one;",
			attempts: []int{1, 1, 1, 1, 1, 1, 1}, connect: 60 * time.Second, read: 60 * time.Second,
		},
		{
			name: "an address of its own: one server", loc: "proxy_pass http://10.1.2.3:8080;",
			attempts: []int{1, 1, 1, 1, 1, 1, 1}, connect: 60 * time.Second, read: 60 * time.Second,
		},
		{
			name: "a name counted as one address, and said", loc: "proxy_pass http://localhost:8080;",
			attempts: []int{1, 1, 1, 1, 1, 1, 1}, connect: 60 * time.Second, read: 60 * time.Second,
			defaults: []string{"nginx: proxy_pass http://localhost:8080 counted as one address (a name that resolves to several is tried once per address)"},
		},
		{
			name: "a Lua balancer: tries alone", loc: "proxy_next_upstream_tries 3;\nproxy_pass http://lua;",
			attempts: []int{3, 3, 3, 1, 1, 1, 1}, connect: 60 * time.Second, read: 60 * time.Second,
		},
		{
			name: "a variable: the largest upstream", loc: "proxy_pass http://$backend;",
			attempts: []int{1, 1, 1, 1, 1, 1, 1}, connect: 60 * time.Second, read: 60 * time.Second,
		},
		{
			name: "non_idempotent", loc: "proxy_next_upstream error timeout non_idempotent;\nproxy_pass http://three;",
			attempts: []int{3, 3, 3, 1, 1, 1, 1}, connect: 60 * time.Second, read: 60 * time.Second, always: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := conf(tc.http, tc.loc)
			if tc.name == "a variable: the largest upstream" {
				c = strings.Replace(c, "upstream lua { server 0.0.0.1; balancer_by_lua_block { balancer.balance() } }", "", 1)
				tc.attempts = []int{3, 3, 3, 1, 1, 1, 1}
			}
			l := nginxConfLayer(t, c, "shop.example.com /api/", nil)
			if got := nginxAttempts(l); !slices.Equal(got, tc.attempts) {
				t.Errorf("attempts %v, want %v (connect reset timeout 5xx 503 429 4xx)", got, tc.attempts)
			}
			if l.pol.ConnectTimeout != tc.connect || l.pol.ReadTimeout != tc.read || l.pol.Deadline != tc.deadline {
				t.Errorf("connect %v read %v deadline %v, want %v %v %v", l.pol.ConnectTimeout, l.pol.ReadTimeout, l.pol.Deadline, tc.connect, tc.read, tc.deadline)
			}
			if got := l.pol.Retry.NonIdempotent == policy.NonIdempotentAlways; got != tc.always {
				t.Errorf("non_idempotent always = %v, want %v", got, tc.always)
			}
			for _, d := range tc.defaults {
				if !slices.Contains(l.Defaults, d) {
					t.Errorf("defaults %q lack %q", l.Defaults, d)
				}
			}
			if l.Kind != "nginx" || l.answer != answerNginx || !l.unsentOnly {
				t.Errorf("kind %q answer %v unsentOnly %v", l.Kind, l.answer, l.unsentOnly)
			}
		})
	}
}

// TestNginxConfNesting: a nested location inherits from the location around it; an if in a
// location that proxy_passes is a layer of its own with the location's settings; the
// layer's position is the location's, its retries' the directive's.
func TestNginxConfNesting(t *testing.T) {
	conf := `http {
  upstream b { server 10.0.0.1; server 10.0.0.2; }
  proxy_read_timeout 10s;
  server {
    listen 8080;
    proxy_read_timeout 20s;
    location / {
      proxy_next_upstream_tries 1;
      location /inner/ {
        proxy_pass http://b;
      }
      if ($request_method = POST) {
        proxy_pass http://b;
      }
    }
  }
}
`
	inner := nginxConfLayer(t, conf, ":8080 /inner/", nil)
	if inner.pol.ReadTimeout != 20*time.Second || inner.retryOf(FailConnect) != 1 || inner.Line != 9 {
		t.Errorf("inner: read %v, connect attempts %d, line %d; want 20s (server), 1 (tries from the outer location), 9", inner.pol.ReadTimeout, inner.retryOf(FailConnect), inner.Line)
	}
	if inner.retryAt.Line != 8 || !strings.Contains(inner.retryWhy, "proxy_next_upstream_tries 1 (location /)") {
		t.Errorf("retries at line %d, why %q", inner.retryAt.Line, inner.retryWhy)
	}
	iff := nginxConfLayer(t, conf, ":8080 / if ($request_method = POST)", nil)
	if iff.Line != 12 || iff.pol.ReadTimeout != 20*time.Second {
		t.Errorf("if layer at line %d, read %v", iff.Line, iff.pol.ReadTimeout)
	}
}

// TestNginxConfForRequest: nginx passes a POST it sent to no other server (ngx_http_upstream_next,
// NGX_HTTP_UPSTREAM_FT_NON_IDEMPOTENT): only a connection that never opened is retried,
// whatever proxy_next_upstream lists, unless it lists non_idempotent.
func TestNginxConfForRequest(t *testing.T) {
	conf := func(next string) string {
		return "http { upstream b { server 10.0.0.1; server 10.0.0.2; }\n server { server_name s; location / { proxy_next_upstream " + next + "; proxy_pass http://b; } } }\n"
	}
	l := nginxConfLayer(t, conf("error timeout http_503 http_429 http_404"), "s /", nil)
	l.forRequest(policy.Request{Method: "POST"})
	if got := nginxAttempts(l); !slices.Equal(got, []int{2, 1, 1, 1, 1, 1, 1}) {
		t.Errorf("POST: attempts %v, want only connect retried", got)
	}
	if !slices.Contains(l.Defaults, "nginx does not retry a POST it sent: only a connection that never opened") {
		t.Errorf("defaults %q", l.Defaults)
	}
	l = nginxConfLayer(t, conf("error timeout http_503 http_429 http_404"), "s /", nil)
	l.forRequest(policy.Request{Method: "PUT"})
	if got := nginxAttempts(l); !slices.Equal(got, []int{2, 2, 2, 1, 2, 2, 2}) {
		t.Errorf("PUT: attempts %v, want every class listed", got)
	}
	l = nginxConfLayer(t, conf("error timeout non_idempotent"), "s /", nil)
	l.forRequest(policy.Request{Method: "POST"})
	if got := nginxAttempts(l); !slices.Equal(got, []int{2, 2, 2, 1, 1, 1, 1}) {
		t.Errorf("POST with non_idempotent: attempts %v", got)
	}
}

// TestNginxConfErrors: what nginx would refuse, and what check cannot read, is an input
// error at FILE:LINE:COL, never a skip.
func TestNginxConfErrors(t *testing.T) {
	wrap := func(loc string) string {
		return "http {\n  server {\n    location / {\n      " + loc + "\n    }\n  }\n}\n"
	}
	for _, tc := range []struct{ name, conf, want string }{
		{"syntax", "http {\n  server {\n    location / {\n      proxy_pass http://a\n    }\n  }\n}\n", `nginx.conf:5:5: unexpected "}"`},
		{"time", wrap("proxy_read_timeout 5x;"), `nginx.conf:4:26: proxy_read_timeout: invalid value "5x": want a time such as 30s, 1m or 500ms (a number alone is seconds)`},
		{"months are no msec unit", wrap("proxy_connect_timeout 1M;"), `nginx.conf:4:29: proxy_connect_timeout: invalid value "1M"`},
		{"tries", wrap("proxy_next_upstream_tries -1;"), `nginx.conf:4:33: proxy_next_upstream_tries: invalid value "-1": want a whole number (0 = no limit)`},
		{"token", wrap("proxy_next_upstream error http_501;"), `nginx.conf:4:33: proxy_next_upstream: invalid value "http_501"`},
		{"duplicate", wrap("proxy_read_timeout 5s; proxy_read_timeout 6s;"), `nginx.conf:4:30: proxy_read_timeout: directive is duplicate (first at 4:7)`},
		{"two arguments", wrap("proxy_read_timeout 5s 6s;"), `nginx.conf:4:7: proxy_read_timeout: invalid number of arguments`},
		{"in an if", wrap("if ($a) { proxy_read_timeout 5s; }"), `nginx.conf:4:17: proxy_read_timeout: not allowed here`},
		{"proxy_pass in a server", "http {\n  server {\n    proxy_pass http://a;\n  }\n}\n", `nginx.conf:3:5: proxy_pass: not allowed here`},
		{"two proxy_pass", wrap("proxy_pass http://a; proxy_pass http://b;"), `nginx.conf:4:28: proxy_pass: directive is duplicate`},
		{"duplicate upstream", "http {\n  upstream u { server a; }\n  upstream U { server b; }\n}\n", `nginx.conf:3:3: upstream: duplicate upstream "U"`},
		{"empty upstream", "http {\n  upstream u { keepalive 2; }\n}\n", `nginx.conf:2:3: upstream: no servers in upstream "u"`},
		{"max_fails", "http {\n  upstream u { server a max_fails=x; }\n}\n", `nginx.conf:2:25: server: invalid parameter "max_fails=x"`},
		{"fail_timeout in ms", "http {\n  upstream u { server a fail_timeout=500ms; }\n}\n", `nginx.conf:2:25: server: invalid parameter "fail_timeout=500ms"`},
		{"missing include", "http {\n  include proxy.conf;\n}\n", `nginx.conf:2:11: include "proxy.conf": `},
		{"cycle", "http {\n  include nginx.conf;\n}\n", `nginx.conf:2:3: include "nginx.conf" makes a cycle: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "nginx.conf")
			if err := os.WriteFile(path, []byte(tc.conf), 0o644); err != nil {
				t.Fatal(err)
			}
			_, reason, err := readNginxConf(path, []byte(tc.conf))
			var se *scenario.Error
			if !errors.As(err, &se) {
				t.Fatalf("err %v (reason %q), want an input error", err, reason)
			}
			got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("\n got %s\nwant %s…", got, tc.want)
			}
		})
	}
}

// TestNginxConfStock: an absent include of a file nginx ships is left out with a note, and an
// absolute include under /etc/nginx/ is read beside the nginx.conf being checked.
func TestNginxConfStock(t *testing.T) {
	conf := "http {\n  include /etc/nginx/mime.types;\n  include /etc/nginx/conf.d/*.conf;\n}\n"
	l := nginxConfLayer(t, conf, "shop /", map[string]string{
		"conf.d/shop.conf": "upstream b { server 10.0.0.1; server 10.0.0.2; }\nserver { server_name shop; location / { proxy_pass http://b; } }\n",
	})
	if l.retryOf(FailConnect) != 2 || filepath.Base(l.File) != "shop.conf" {
		t.Errorf("connect attempts %d in %s, want 2 in conf.d/shop.conf", l.retryOf(FailConnect), l.File)
	}
}

// TestNginxConfWalk: in a walk, a file nginx.conf includes is read as part of it (skipped on
// its own, with the reason), a file of server blocks nothing includes is read on its own,
// `# patience:ignore` works in an included file, and a via: that names an included file
// takes its locations as nginx.conf has them.
func TestNginxConfWalk(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"nginx/nginx.conf": "http {\n  proxy_read_timeout 20s;\n  upstream b { server 10.0.0.1; server 10.0.0.2; }\n  include conf.d/*.conf;\n}\n",
		"nginx/conf.d/a.conf": "server {\n  server_name a.example;\n  location /x {\n" +
			"    proxy_next_upstream error timeout http_500; # patience:ignore PT013\n    proxy_pass http://b;\n  }\n}\n",
		"nginx/other/frag.conf": "server {\n  server_name f.example;\n  location / { proxy_pass http://10.0.0.9; }\n}\n",
		"patience.yaml": "dependencies:\n  - name: x\n    caller: {kind: interactive, budget: 5s}\n    request: {method: POST}\n" +
			"    via:\n      - {file: nginx/conf.d/a.conf, name: /x}\n    policy: {timeout: 1s, retry: none}\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := runPaths(t, dir)
	rel := func(p string) string { r, _ := filepath.Rel(dir, p); return r }
	var skipped []string
	for _, s := range res.Skipped {
		skipped = append(skipped, rel(s.Path)+": "+strings.ReplaceAll(s.Reason, dir+string(filepath.Separator), ""))
	}
	if !slices.Contains(skipped, "nginx/conf.d/a.conf: included by nginx/nginx.conf: read as part of it") {
		t.Errorf("skipped %q", skipped)
	}
	var configs []string
	for _, c := range res.Configs {
		configs = append(configs, rel(c.Path)+" "+strings.Join(c.Kinds, ","))
	}
	if !slices.Equal(configs, []string{"nginx/nginx.conf location/a.example /x", "nginx/other/frag.conf location/f.example /"}) {
		t.Errorf("configs %q", configs)
	}
	var chain *Chain
	for i := range res.Chains {
		if res.Chains[i].Dependency == "x" {
			chain = &res.Chains[i]
		}
	}
	if chain == nil || len(chain.Layers) != 2 || chain.Layers[0].Name != "a.example /x" {
		t.Fatalf("chains %+v", res.Chains)
	}
	// The POST nginx sent is not passed on: only a refused connection is retried.
	if a := chain.Layers[0].Attempts; a.Connect != 2 || a.Timeout != 1 || a.S5xx != 1 {
		t.Errorf("nginx attempts %+v, want connect 2, timeout 1, 5xx 1", a)
	}
	var got, suppressed []string
	for _, f := range res.Findings {
		got = append(got, rel(f.File)+" "+f.Rule)
	}
	for _, f := range res.Suppressed {
		suppressed = append(suppressed, rel(f.File)+":"+itoa(f.Line)+" "+f.Rule)
	}
	if !slices.Contains(suppressed, "nginx/conf.d/a.conf:4 PT013") || slices.Contains(got, "nginx/conf.d/a.conf PT013") {
		t.Errorf("findings %q, suppressed %q: want PT013 in a.conf suppressed", got, suppressed)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestNginxConfWalkOrder: nginx.conf is read before another file with an http block it
// includes (read once, as part of it), and a file of stream {} servers, whose proxy_pass
// stands in the server, is skipped with the reason, not refused.
func TestNginxConfWalkOrder(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"nginx.conf":  "events {}\ninclude http.conf;\n",
		"http.conf":   "http {\n  server { server_name h; location / { proxy_pass http://10.0.0.1; } }\n}\n",
		"stream.conf": "upstream dns { server 10.0.0.53:53; }\nserver {\n  listen 53 udp;\n  proxy_pass dns;\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := LoadPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var configs, skipped []string
	for _, c := range in.Configs.Files {
		configs = append(configs, filepath.Base(c.Path))
	}
	for _, s := range in.Configs.Skipped {
		reason, _, _ := strings.Cut(s.Reason, ": read as part of it")
		reason, _, _ = strings.Cut(reason, ": nothing check reads")
		skipped = append(skipped, filepath.Base(s.Path)+": "+reason)
	}
	if !slices.Equal(configs, []string{"nginx.conf"}) {
		t.Errorf("configs %q, want nginx.conf alone", configs)
	}
	if !slices.Equal(skipped, []string{"http.conf: included by " + filepath.Join(dir, "nginx.conf"), "stream.conf: nginx configuration with no location that proxy_passes"}) {
		t.Errorf("skipped %q", skipped)
	}
}
