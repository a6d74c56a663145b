package emit_test

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/patience-dev/patience/emit"
)

// TestNginxEmittedSyntax has the real nginx (Debian's nginx-light) test every fixture's
// emitted configuration (`nginx -t`), included in an http block as conf.d files are, with the
// host made 127.0.0.1: nginx resolves an upstream's names when it loads. It reads files only,
// so it runs wherever nginx is installed.
func TestNginxEmittedSyntax(t *testing.T) {
	bin, err := exec.LookPath("nginx")
	if err != nil {
		t.Skip("nginx is not installed (Debian: nginx-light)")
	}
	for _, fx := range configFixtures() {
		t.Run(fx.name, func(t *testing.T) {
			in := fx.in
			u, err := url.Parse(in.URL)
			if err != nil {
				t.Fatal(err)
			}
			if p := u.Port(); p != "" {
				u.Host = "127.0.0.1:" + p
			} else {
				u.Host = "127.0.0.1"
			}
			in.URL = u.String()
			e, err := emit.Emit(emit.Nginx, in)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			conf := filepath.Join(dir, "emitted.conf")
			main := filepath.Join(dir, "nginx.conf")
			text := fmt.Sprintf("pid %[1]s/nginx.pid;\nerror_log %[1]s/error.log;\nevents {}\nhttp {\n  include %[2]s;\n}\n", dir, conf)
			if err := os.WriteFile(conf, []byte(e.Text), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(main, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "-t", "-q", "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", main).CombinedOutput()
			if err != nil {
				t.Errorf("nginx -t: %v\n%s\n%s", err, out, e.Text)
			}
		})
	}
}
