package nginxconf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func load(t *testing.T, dir, main string, ld *Loader) (*Config, error) {
	t.Helper()
	path := filepath.Join(dir, main)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if ld == nil {
		ld = &Loader{}
	}
	if ld.Prefix == "" {
		ld.Prefix = filepath.Dir(path)
	}
	if ld.ReadFile == nil {
		ld.ReadFile = os.ReadFile
	}
	return ld.Load(path, data)
}

// TestLoadIncludes: include is expanded where it stands, read from the prefix (the main
// file's directory, not the including file's), masks in sorted order, hidden files and a
// mask that matches nothing adding nothing.
func TestLoadIncludes(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"nginx.conf":              "http {\n  include conf.d/*.conf;\n  include none/*.conf;\n  include extra.conf;\n}\n",
		"conf.d/b.conf":           "server { listen 2; }\n",
		"conf.d/a.conf":           "server { listen 1; include snippets/p.conf; }\n",
		"conf.d/.hidden.conf":     "server { listen 9; }\n",
		"conf.d/snippets/p.conf":  "wrong 1;\n", // relative to the including file: not what nginx reads
		"snippets/p.conf":         "proxy_read_timeout 5s;\n",
		"extra.conf":              "upstream u { server 10.0.0.1; }\n",
		"conf.d/ignored.conf.bak": "x;\n",
	})
	cfg, err := load(t, dir, "nginx.conf", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "http[]{server[]{listen[1] proxy_read_timeout[5s]} server[]{listen[2]} upstream[u]{server[10.0.0.1]}}"
	if got := flat(cfg.Directives, false); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	var rel []string
	for _, f := range cfg.Included {
		r, _ := filepath.Rel(dir, f)
		rel = append(rel, r)
	}
	if got := strings.Join(rel, " "); got != "conf.d/a.conf snippets/p.conf conf.d/b.conf extra.conf" {
		t.Errorf("included %s", got)
	}
	// Each directive knows its own file and line.
	timeout := cfg.Directives[0].Body[0].Body[1]
	if filepath.Base(timeout.File) != "p.conf" || timeout.Line != 1 {
		t.Errorf("proxy_read_timeout at %s:%d, want snippets/p.conf:1", timeout.File, timeout.Line)
	}
}

// TestLoadErrors: a missing file, a cycle, depth, count and size bounds are errors at the
// include.
func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		ld    *Loader
		want  string
	}{
		{"missing", map[string]string{"nginx.conf": "http {\n  include proxy.conf;\n}\n"}, nil,
			`nginx.conf:2:11: include "proxy.conf": DIR/proxy.conf: no such file or directory (nginx reads a relative include from the directory of the main configuration, here DIR)`},
		{"cycle", map[string]string{"nginx.conf": "include a.conf;\n", "a.conf": "include b.conf;\n", "b.conf": "\n\ninclude a.conf;\n"}, nil,
			`b.conf:3:1: include "a.conf" makes a cycle: DIR/a.conf includes DIR/b.conf includes DIR/a.conf`},
		{"self", map[string]string{"nginx.conf": "include nginx.conf;\n"}, nil,
			`nginx.conf:1:1: include "nginx.conf" makes a cycle: DIR/nginx.conf includes DIR/nginx.conf`},
		{"depth", map[string]string{"nginx.conf": "include a.conf;\n", "a.conf": "include b.conf;\n", "b.conf": "x 1;\n"}, &Loader{MaxDepth: 1},
			`a.conf:1:1: include "b.conf": includes nested more than 1 deep`},
		{"files", map[string]string{"nginx.conf": "include *.inc;\n", "a.inc": "", "b.inc": ""}, &Loader{MaxFiles: 1},
			`nginx.conf:1:1: include "*.inc": more than 1 files included`},
		{"bytes", map[string]string{"nginx.conf": "include a.conf;\n", "a.conf": strings.Repeat("# x\n", 1<<19)}, &Loader{MaxBytes: 1 << 20},
			`nginx.conf:1:1: include "a.conf": more than 1 MiB read through includes`},
		{"arguments", map[string]string{"nginx.conf": "include a b;\n"}, nil,
			`nginx.conf:1:1: invalid number of arguments in "include" directive: want one file or mask`},
		{"syntax in an include", map[string]string{"nginx.conf": "include a.conf;\n", "a.conf": "server {\n"}, nil,
			`a.conf:2:1: unexpected end of file, expecting "}" (the "server" block at 1:1 is not closed)`},
		{"directory", map[string]string{"nginx.conf": "include d*;\n", "d/x": ""}, nil,
			`nginx.conf:1:1: include "d*": DIR/d: read DIR/d: is a directory`},
	} {
		dir := writeTree(t, tc.files)
		_, err := load(t, dir, "nginx.conf", tc.ld)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v, want an *Error", tc.name, err)
			continue
		}
		got := strings.ReplaceAll(err.Error(), dir, "DIR")
		got = strings.TrimPrefix(got, "DIR/")
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestLoadHooks: Rebase moves an absolute include, Absent lets a missing one be left out;
// both leave a note at the include.
func TestLoadHooks(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"nginx.conf":    "include /etc/nginx/conf.d/*.conf;\ninclude /etc/nginx/mime.types;\n",
		"conf.d/a.conf": "a 1;\n",
	})
	ld := &Loader{
		Rebase: func(p string) string { return filepath.Join(dir, strings.TrimPrefix(p, "/etc/nginx/")) },
		Absent: func(p string) (string, bool) { return "stock", filepath.Base(p) == "mime.types" },
	}
	cfg, err := load(t, dir, "nginx.conf", ld)
	if err != nil {
		t.Fatal(err)
	}
	if got := flat(cfg.Directives, false); got != "a[1]" {
		t.Errorf("directives %s", got)
	}
	var notes []string
	for _, n := range cfg.Notes {
		notes = append(notes, strings.ReplaceAll(n.Text, dir, "DIR")+" @"+filepath.Base(n.File))
	}
	want := "include /etc/nginx/conf.d/*.conf read as DIR/conf.d/*.conf @nginx.conf|include /etc/nginx/mime.types read as DIR/mime.types @nginx.conf|include /etc/nginx/mime.types: stock @nginx.conf"
	if got := strings.Join(notes, "|"); got != want {
		t.Errorf("notes\n got %s\nwant %s", got, want)
	}
}
