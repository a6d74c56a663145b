package nginxconf

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// flat renders directives as "name[arg|arg]{...}" with positions, for comparison.
func flat(ds []*Directive, pos bool) string {
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(d.Name)
		if pos {
			fmt.Fprintf(&b, "@%d:%d", d.Line, d.Col)
		}
		b.WriteString("[" + strings.Join(d.Args, "|") + "]")
		if d.Block {
			b.WriteString("{" + flat(d.Body, pos) + "}")
		}
	}
	return b.String()
}

// TestParse: nginx's grammar, token by token (ngx_conf_read_token).
func TestParse(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"directive", "worker_processes 4;", "worker_processes[4]"},
		{"block", "http { server { listen 80; } }", "http[]{server[]{listen[80]}}"},
		{"no spaces", "events{worker_connections 10;}", "events[]{worker_connections[10]}"},
		{"semicolon ends a word", "proxy_pass http://a;proxy_read_timeout 5s;", "proxy_pass[http://a] proxy_read_timeout[5s]"},
		{"comment between tokens", "a 1; # b 2;\nc 3;", "a[1] c[3]"},
		{"hash inside a word", "return 200 a#b;", "return[200|a#b]"},
		{"quoted hash, brace and semicolon", `add_header X "a # { } ;";`, `add_header[X|a # { } ;]`},
		{"single quotes", `log_format main '$remote_addr "$request"';`, `log_format[main|$remote_addr "$request"]`},
		{"adjacent strings", `log_format t '$a ' '$b';`, `log_format[t|$a |$b]`},
		{"escapes", `set $a "x\"y\\z\tq\w";`, "set[$a|x\"y\\z\tq\\w]"},
		{"escaped space in a word", `set $a b\ c;`, `set[$a|b\ c]`}, // nginx keeps the backslash
		{"variable braces", `set $a ${host}x;`, `set[$a|${host}x]`},
		{"variable brace in quotes", `set $a "${host}";`, `set[$a|${host}]`},
		{"if parentheses", `if ($request_method = "POST") { return 405; }`, `if[($request_method|=|POST|)]{return[405]}`},
		{"brace in a word", "map $a $b { default x}y; }", "map[$a|$b]{default[x}y]}"},
		{"empty block", "location / {}", "location[/]{}"},
		{"crlf", "a 1;\r\nb 2;\r\n", "a[1] b[2]"},
		{"empty", "", ""},
		{"only comments", "# nothing\n  # here\n", ""},
		{"lua block", "content_by_lua_block { local t = {a = '}'} -- }\n ngx.say(\"}\") }\nb 1;", "content_by_lua_block[]{} b[1]"},
		{"lua long strings", "access_by_lua_block { local s = [==[ } ]==] --[[ } ]] }\nb 1;", "access_by_lua_block[]{} b[1]"},
		{"set_by_lua_block args", "set_by_lua_block $x { return '{' }\nb 1;", "set_by_lua_block[$x]{} b[1]"},
	} {
		ds, err := Parse("nginx.conf", []byte(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := flat(ds, false); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestParsePositions: every directive and argument knows its line and column (characters,
// not bytes), in its file.
func TestParsePositions(t *testing.T) {
	in := "http {\n  # é comment\n  server {\n\tlisten 80;\n    location /é/ { proxy_pass  \"http://a\"; }\n  }\n}\n"
	ds, err := Parse("n.conf", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := "http@1:1[]{server@3:3[]{listen@4:2[80] location@5:5[/é/]{proxy_pass@5:20[http://a]}}}"
	if got := flat(ds, true); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	pass := ds[0].Body[0].Body[1].Body[0]
	if v, at := pass.Arg(0); v != "http://a" || at != (Pos{File: "n.conf", Line: 5, Col: 32}) {
		t.Errorf("proxy_pass arg %q at %+v, want at 5:32 (its quote)", v, at)
	}
	if pass.File != "n.conf" {
		t.Errorf("file %q", pass.File)
	}
}

// TestParseErrors: what nginx refuses is an error at FILE:LINE:COL, in nginx's words.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"stray close", "a 1;\n}\n", `c.conf:2:1: unexpected "}"`},
		{"unclosed block", "http {\n  server {\n", `c.conf:3:1: unexpected end of file, expecting "}" (the "server" block at 2:3 is not closed)`},
		{"missing semicolon at the end", "worker_processes 4", `c.conf:1:19: unexpected end of file, expecting ";" or "}"`},
		{"missing semicolon before close", "http { listen 80 }", `c.conf:1:18: unexpected "}"`},
		{"lone semicolon", "a 1;;", `c.conf:1:5: unexpected ";"`},
		{"lone brace", "{ a 1; }", `c.conf:1:1: unexpected "{"`},
		{"text after a quote", `a "b"c;`, `c.conf:1:6: unexpected "c"`},
		{"unterminated quote", "a \"b;\n", `c.conf:2:1: unexpected end of file, expecting ";" or "}"`},
		{"too long", "a " + strings.Repeat("x", MaxToken+10) + ";", `c.conf:1:3: too long parameter "xxxxxxxxxx"... started`},
		{"too long quoted", "a \"" + strings.Repeat("x", MaxToken+10), `c.conf:1:3: too long parameter, probably missing terminating "\"" character`},
		{"nesting", strings.Repeat("a {", MaxNesting+1), fmt.Sprintf("c.conf:1:%d: blocks nested more than %d deep", 3*MaxNesting+1, MaxNesting)},
		{"lua block unclosed", "content_by_lua_block {\n ngx.say('x')\n", `c.conf:3:1: unexpected end of file in the Lua code of "content_by_lua_block" at 1:1`},
	} {
		_, err := Parse("c.conf", []byte(tc.in))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v, want an *Error", tc.name, err)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, err, tc.want)
		}
	}
}

// TestParseTime: nginx's times (ngx_parse_time): a number is seconds, units largest first.
func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in      string
		seconds bool
		want    time.Duration
		ok      bool
	}{
		{"30", false, 30 * time.Second, true},
		{"30s", false, 30 * time.Second, true},
		{"500ms", false, 500 * time.Millisecond, true},
		{"1m", false, time.Minute, true},
		{"1m30s", false, 90 * time.Second, true},
		{"1h 30m", false, 90 * time.Minute, true},
		{"1d", false, 24 * time.Hour, true},
		{"1w", false, 7 * 24 * time.Hour, true},
		{"0", false, 0, true},
		{"1s500ms", false, 1500 * time.Millisecond, true},
		{"1M", false, 0, false}, // months and years are not msec units
		{"1y", false, 0, false},
		{"1M", true, 30 * 24 * time.Hour, true},
		{"10s", true, 10 * time.Second, true},
		{"500ms", true, 0, false}, // seconds-only directives refuse ms
		{"30s1m", false, 0, false},
		{"s", false, 0, false},
		{"", false, 0, false},
		{"-1", false, 0, false},
		{"1.5s", false, 0, false},
		{"99999999999999999999", false, 0, false},
	} {
		got, ok := ParseTime(tc.in, tc.seconds)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseTime(%q, %v) = %v, %v, want %v, %v", tc.in, tc.seconds, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{{"0", 0, true}, {"3", 3, true}, {"", 0, false}, {"-1", 0, false}, {"+2", 0, false}, {"1x", 0, false}, {"99999999999", 0, false}} {
		if got, ok := Atoi(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("Atoi(%q) = %d, %v, want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// print writes directives back in nginx's syntax, every token quoted: what Parse reads back
// as the same directives.
func print(b *strings.Builder, ds []*Directive) {
	q := func(s string) string {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
	}
	for _, d := range ds {
		b.WriteString(q(d.Name))
		for _, a := range d.Args {
			b.WriteString(" " + q(a))
		}
		if !d.Block {
			b.WriteString(";\n")
			continue
		}
		b.WriteString(" {\n")
		print(b, d.Body)
		b.WriteString("}\n")
	}
}

// FuzzNginxConf: whatever bytes a configuration holds, Parse returns directives or an
// *Error at a place in the file, never panics; and what it returns, written back, parses
// to the same directives.
func FuzzNginxConf(f *testing.F) {
	for _, s := range []string{
		"http { server { listen 80; location / { proxy_pass http://a; } } }",
		`log_format main '$remote_addr "$request"' "\"x\"";`,
		"if ($a = \"b\") { set $c ${d}e; }",
		"content_by_lua_block { local t = {'}'} --[[ } ]] }",
		"a \\\n b;\r\n# c\n",
		"}", "{", ";", "\"", "'", "\\", "$", "${", "a 'b", "x_by_lua_block { [==[",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := Parse("f.conf", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.File != "f.conf" || e.Line < 1 || e.Col < 1 || e.Line > strings.Count(string(data), "\n")+1 {
				t.Fatalf("error %#v is not an *Error within the file", err)
			}
			return
		}
		var b strings.Builder
		print(&b, ds)
		again, err := Parse("f.conf", []byte(b.String()))
		if err != nil {
			t.Fatalf("written back, %q does not parse: %v", b.String(), err)
		}
		if x, y := flat(ds, false), flat(again, false); x != y {
			t.Fatalf("written back:\n%s\nparsed %s, first %s", b.String(), y, x)
		}
	})
}
