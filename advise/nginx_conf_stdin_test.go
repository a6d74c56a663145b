package advise

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	inputpkg "github.com/patience-dev/patience/internal/input"
)

// stdinConf is an nginx.conf as a distribution ships it, with a timed log_format added: two
// log_format directives, the access_log naming the second.
const stdinConf = `user nginx;
worker_processes auto;

http {
    include       /etc/nginx/mime.types;

    # the distribution's default, without timers
    log_format  main  '$remote_addr - $remote_user [$time_local] "$request" '
                      '$status $body_bytes_sent "$http_referer" '
                      '"$http_user_agent" "$http_x_forwarded_for"';

    log_format timed '$remote_addr [$time_local] "$request" $status '
                     'rt=$request_time urt=$upstream_response_time';

    access_log  /var/log/nginx/access.log  timed;
}
`

// TestParseNginxConf: --log-format -[#NAME] (issue 26 item 3): an nginx.conf already read
// (standard input, read once before any log) is compiled as a --log-format path's content
// is — the log_format named, else the access_log's, else the first — and every error about a
// directive names NAME:LINE:COL at it.
func TestParseNginxConf(t *testing.T) {
	for _, tc := range []struct {
		name, conf, want string
		// got is the log_format compiled; err, the error's text when one is wanted.
		got, err string
	}{
		{name: "the access_log's", conf: stdinConf, got: "timed"},
		{name: "named", conf: stdinConf, want: "timed", got: "timed"},
		{name: "the first", conf: "log_format a '$request_time';\nlog_format b '$request_time $status';\n", got: "a"},
		{name: "quoted name, escape=json", conf: `log_format 'j' escape=json '{"t":"$request_time"}';`, want: "j", got: "j"},
		{name: "named, untimed", conf: stdinConf, want: "main",
			err: "(stdin):8:5: log_format main has no timing field"},
		{name: "unknown name", conf: stdinConf, want: "nope", err: `(stdin): no log_format "nope" (have main, timed)`},
		{name: "none", conf: "http {}\n", err: "(stdin): no log_format directive"},
		// nginx's grammar (internal/nginxconf) decides: a quoted string may span lines, so a
		// quote closed on the next line is a format with a line break in it, which nginx
		// writes as two lines; one never closed is nginx's own "unexpected end of file".
		{name: "line break in the format", conf: "http {\n  log_format t '$status\n    $request_time';\n}\n",
			err: "(stdin):2:3: log_format t: its format holds a line break"},
		{name: "quote never closed", conf: "log_format t '$request_time;\n",
			err: `(stdin):2:1: unexpected end of file`},
		// Without its ';' the next line's words are the format's too, as nginx reads them.
		{name: "no ';'", conf: "log_format t '$request_time'\naccess_log /x t;\n",
			err: "(stdin):1:1: log_format t"},
		{name: "no ';' before '}'", conf: "http { log_format t '$request_time' }",
			err: `(stdin):1:37: unexpected "}"`},
		{name: "no format", conf: "\n\n   log_format t;", err: "(stdin):3:4: log_format t has no format"},
		{name: "no $variable", conf: "log_format t 'plain';", err: `(stdin):1:1: log_format t: log_format "plain" has no $variable`},
		// A log_format that is not the one chosen is left alone; a syntax error anywhere is
		// nginx's, at its place (nginx refuses the whole file).
		{name: "another one broken", conf: "log_format bad;\nlog_format t '$request_time';\n", want: "t", got: "t"},
		{name: "a syntax error elsewhere", conf: "log_format bad '$status\nlog_format t '$request_time';\n", want: "t",
			err: `(stdin):2:15: unexpected "$"`},
		// A comment's '#' and a log_format word inside another directive are not directives.
		{name: "comments", conf: "# log_format x 'no';\nadd_header X \"log_format\";\nlog_format t '$request_time'; # log_format y\n", got: "t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseNginxConf("(stdin)", []byte(tc.conf), tc.want)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.t.name != tc.got {
				t.Errorf("log_format %q, want %q", c.t.name, tc.got)
			}
		})
	}
	big := bytes.Repeat([]byte("#"), inputpkg.MaxCheck+1)
	var tl *inputpkg.TooLargeError
	if _, err := ParseNginxConf("(stdin)", big, ""); !errors.As(err, &tl) {
		t.Errorf("a conf past 4 MiB: %v, want a TooLargeError", err)
	}
}

// TestNginxConfOption: Options.NginxConf reads every log with the log_format given, as the
// same nginx.conf given by path does, and says the format is nginx without --format.
func TestNginxConfOption(t *testing.T) {
	conf := write(t, "nginx.conf", stdinConf)
	log := write(t, "a.log", `1.1.1.1 [01/May/2024:00:00:00 +0000] "GET /x HTTP/1.1" 200 rt=0.051 urt=0.050`+"\n"+
		`1.1.1.1 [01/May/2024:00:00:01 +0000] "GET /x HTTP/1.1" 200 rt=0.071 urt=0.070`+"\n")
	c, err := ParseNginxConf("(stdin)", []byte(stdinConf), "timed")
	if err != nil {
		t.Fatal(err)
	}
	piped := run(t, Options{Files: []string{log, log}, NginxConf: c})
	named := run(t, Options{Files: []string{log, log}, LogFormat: conf + "#timed"})
	if piped.Requests != 4 || piped.Requests != named.Requests || math.Abs(*piped.Phases.Total.MaxMs-70) > 0.05 ||
		*piped.Phases.Total.MaxMs != *named.Phases.Total.MaxMs {
		t.Errorf("piped: %d requests, max %v ms; by path: %d, %v ms: want 4 requests, 70 ms, alike",
			piped.Requests, *piped.Phases.Total.MaxMs, named.Requests, *named.Phases.Total.MaxMs)
	}
	// The conf given by path names its errors the same way, at the file's line.
	_, err = Run(context.Background(), Options{Files: []string{log}, LogFormat: conf + "#main"})
	if err == nil || !strings.Contains(err.Error(), conf+":8:5: log_format main has no timing field") {
		t.Errorf("#main by path: %v, want it named at %s:8:5", err, conf)
	}
}
