package check

import (
	"bytes"
	"strings"
	"testing"
)

// TestLoadPathsStdin: "-" reads stdin once, bounded like a file, named (stdin); with no
// stdin, "-" is a file name.
func TestLoadPathsStdin(t *testing.T) {
	vs := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: p}\nspec:\n  hosts: [p.example.com]\n  http:\n    - route: [{destination: {host: p.example.com}}]\n"
	tests := []struct {
		name    string
		paths   []string
		stdin   []byte
		nilIn   bool
		wantErr string
		configs int
	}{
		{name: "multi-document", paths: []string{"-"}, stdin: []byte("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n" + vs), configs: 1},
		{name: "too large", paths: []string{"-"}, stdin: bytes.Repeat([]byte("#"), maxFileSize+1), wantErr: "(stdin): cannot read: larger than 4 MiB"},
		{name: "twice", paths: []string{"-", "-"}, stdin: []byte(vs), wantErr: "(stdin): - is named twice"},
		{name: "no stdin: a file name", paths: []string{"-"}, nilIn: true, wantErr: "-: cannot read: no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			var in *bytes.Reader
			if !tt.nilIn {
				in = bytes.NewReader(tt.stdin)
			}
			var got *Inputs
			var err error
			if in == nil {
				got, err = LoadPathsStdin(tt.paths, nil)
			} else {
				got, err = LoadPathsStdin(tt.paths, in)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := len(got.Configs.Files); n != tt.configs {
				t.Errorf("%d configs, want %d", n, tt.configs)
			}
			if len(got.Read) != 1 || got.Read[0] != StdinName {
				t.Errorf("read %q, want [%s]", got.Read, StdinName)
			}
		})
	}
}
