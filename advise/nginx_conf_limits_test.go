package advise

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNginxConfCapped: --log-format nginx.conf#NAME reads the conf through internal/input,
// capped at 4 MiB (issue 24 item 2: an uncapped os.ReadFile read /dev/zero without end).
// A conf past the cap is refused naming the flag, the file and the bound; before the fix
// this one was read whole and its log_format used.
func TestNginxConfCapped(t *testing.T) {
	dir := t.TempDir()
	conf := "http {\n  log_format timed '$remote_addr [$time_local] \"$request\" $status $request_time';\n}\n"
	small := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(small, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := nginxTemplate(Options{LogFormat: small + "#timed"}, nil); err != nil {
		t.Fatalf("a small conf: %v", err)
	}
	big := filepath.Join(dir, "big.conf")
	pad := bytes.Repeat([]byte("# padding\n"), (4<<20)/10+1)
	if err := os.WriteFile(big, append([]byte(conf), pad...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := nginxTemplate(Options{LogFormat: big + "#timed"}, nil)
	if err == nil || !strings.Contains(err.Error(), "--log-format: "+big+": larger than 4 MiB") {
		t.Errorf("a conf past 4 MiB: %v", err)
	}
}
