package check

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// write creates the files of tree (path → content) under dir.
func write(t *testing.T, dir string, tree map[string]string) {
	t.Helper()
	for p, text := range tree {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks: %v", err)
	}
}

const oneDependency = "dependencies:\n  - name: api\n    policy: {timeout: 1s}\n"

const istioVS = `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: ratings}
spec:
  hosts: [ratings]
  http:
    - route: [{destination: {host: ratings}}]
      timeout: 2s
      retries: {attempts: 3, perTryTimeout: 1s}
`

// configMapMount builds dir shaped as the kubelet projects a ConfigMap volume (kubernetes
// pkg/volume/util/atomic_writer.go, AtomicWriter.Write steps 5–9 and
// createUserVisibleFiles): the files live in a hidden timestamped directory
// "..2006_01_02_15_04_05.<random>", "..data" is a relative symlink to it, and every
// visible name — a file or a sub-directory — is a relative symlink "NAME -> ..data/NAME".
func configMapMount(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	ts := "..2024_03_01_12_00_00.1234567890"
	write(t, filepath.Join(dir, ts), files)
	symlink(t, ts, filepath.Join(dir, "..data"))
	seen := map[string]bool{}
	for p := range files {
		top := strings.Split(filepath.ToSlash(p), "/")[0]
		if !seen[top] {
			seen[top] = true
			symlink(t, filepath.Join("..data", top), filepath.Join(dir, top))
		}
	}
}

// A ConfigMap mount is read once, by its visible names: neither ..data nor the timestamped
// directory is walked, and a visible link to a sub-directory is followed.
func TestEmptyWalkConfigMapMount(t *testing.T) {
	dir := t.TempDir()
	configMapMount(t, dir, map[string]string{
		"patience.yaml":      oneDependency,
		"mesh/ratings.yaml":  istioVS,
		"README.md":          "# not read\n",
		"notes/unknown.json": `{"a": 1}`,
	})
	in, err := LoadPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(dir, "mesh", "ratings.yaml"),
		filepath.Join(dir, "notes", "unknown.json"),
		filepath.Join(dir, "patience.yaml"),
	}
	if !reflect.DeepEqual(in.Read, want) {
		t.Errorf("read %q, want %q (each file once, by its visible name)", in.Read, want)
	}
	if len(in.Files) != 1 || in.Files[0].Path != filepath.Join(dir, "patience.yaml") || len(in.Files[0].Dependencies) != 1 {
		t.Errorf("check files: %+v", in.Files)
	}
	if len(in.Configs.Files) != 1 || in.Configs.Files[0].Path != want[0] {
		t.Errorf("configs: %+v", in.Configs.Files)
	}
	if len(in.Configs.Skipped) != 1 || in.Configs.Skipped[0].Path != want[1] {
		t.Errorf("skipped: %+v", in.Configs.Skipped)
	}
}

// A symlink back to an ancestor is walked once; the loop is noted, not followed.
func TestEmptyWalkSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"a/patience.yaml": oneDependency})
	symlink(t, "..", filepath.Join(dir, "a", "up"))
	symlink(t, "a", filepath.Join(dir, "again"))
	in, err := LoadPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Files) != 1 || len(in.Read) != 1 {
		t.Fatalf("read %q, check files %d: want the one file once", in.Read, len(in.Files))
	}
	var loops []string
	for _, s := range in.Configs.Skipped {
		if strings.Contains(s.Reason, "already walked") {
			loops = append(loops, filepath.Base(s.Path))
		}
	}
	// "a" is walked first (entries by name), so "again" is the second link to it, and a/up
	// leads back to the root.
	if !reflect.DeepEqual(loops, []string{"up", "again"}) {
		t.Errorf("loops noted: %q (skipped %+v)", loops, in.Configs.Skipped)
	}
}

// A file reached twice (named, and through a link) is read once.
func TestEmptySameFileOnce(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"patience.yaml": oneDependency})
	symlink(t, "patience.yaml", filepath.Join(dir, "link.yaml"))
	in, err := LoadPaths([]string{filepath.Join(dir, "patience.yaml"), filepath.Join(dir, "link.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Files) != 1 || len(in.Configs.Skipped) != 1 || !strings.Contains(in.Configs.Skipped[0].Reason, "the same file as") {
		t.Errorf("files %d, skipped %+v", len(in.Files), in.Configs.Skipped)
	}
}

// What a walk cannot read is an error naming it, never a file quietly left out.
func TestEmptyWalkUnreadable(t *testing.T) {
	t.Run("dangling link", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, map[string]string{"patience.yaml": oneDependency})
		symlink(t, "gone/envoy.yaml", filepath.Join(dir, "envoy.yaml"))
		symlink(t, "gone/notes.txt", filepath.Join(dir, "notes.txt")) // no walk reads .txt
		_, err := LoadPaths([]string{dir})
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "envoy.yaml")+": cannot read: a symlink to gone/envoy.yaml") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("permission", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root reads a file of mode 000")
		}
		dir := t.TempDir()
		write(t, dir, map[string]string{"patience.yaml": oneDependency, "secret.yaml": "a: 1\n"})
		if err := os.Chmod(filepath.Join(dir, "secret.yaml"), 0); err != nil {
			t.Fatal(err)
		}
		_, err := LoadPaths([]string{dir})
		if err == nil || !strings.Contains(err.Error(), "secret.yaml: cannot read: permission denied") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("named", func(t *testing.T) {
		_, err := LoadPaths([]string{filepath.Join(t.TempDir(), "nope.yaml")})
		if err == nil || !strings.Contains(err.Error(), "nope.yaml: cannot read: no such file or directory") {
			t.Errorf("err = %v", err)
		}
	})
}

// A directory that gives no file says why: empty, or none of its files a walk reads.
func TestEmptyWalkDirectoryReasons(t *testing.T) {
	empty := t.TempDir()
	logs := t.TempDir()
	write(t, logs, map[string]string{"access.log": "x\n", "README.md": "# x\n"})
	in, err := LoadPaths([]string{empty, logs})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range in.Configs.Skipped {
		got[s.Path] = s.Reason
	}
	want := map[string]string{
		empty: "a directory with no file in it (hidden directories, vendor and node_modules are left out)",
		logs:  "a directory of 2 files, none of a kind a walk reads (.yaml, .yml, .json, .ini, .cfg, .conf, source code such as .go, or no extension)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("skipped:\n got %q\nwant %q", got, want)
	}
}

// A hidden file is read whether it is a file or a link to one; a hidden directory is left out
// whether it is a directory or a link to one.
func TestEmptyWalkHiddenLinks(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"real/gate.yaml": oneDependency, ".hidden/other.yaml": oneDependency})
	symlink(t, filepath.Join("real", "gate.yaml"), filepath.Join(dir, ".patience.yaml"))
	symlink(t, "real", filepath.Join(dir, ".linked"))
	in, err := LoadPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	// .patience.yaml comes first by name and is the file read; real/gate.yaml is the same file.
	if len(in.Files) != 1 || in.Files[0].Path != filepath.Join(dir, ".patience.yaml") {
		t.Errorf("check files: %+v", in.Files)
	}
	if len(in.Configs.Skipped) != 1 || !strings.HasPrefix(in.Configs.Skipped[0].Reason, "the same file as ") {
		t.Errorf("skipped: %+v", in.Configs.Skipped)
	}
}

// Other tools' files with a top-level dependencies: are skipped in a walk, with the reason;
// named, they are checked (strictly: the loader's error). A check file with a typo found in
// a walk is still the loader's error.
func TestEmptyWalkOtherToolsDependencies(t *testing.T) {
	files := map[string]string{
		// Helm v2 (helm/charts stable/prometheus-operator/requirements.yaml, bfc708a7): a
		// list of charts with version:, repository:, condition:.
		"chart/requirements.yaml": "dependencies:\n  - name: grafana\n    version: \"5.0.*\"\n    repository: https://example.com/charts\n    condition: grafana.enabled\n",
		// conda: name:, channels:, and package strings.
		"env/environment.yml": "name: svc\nchannels: [conda-forge]\ndependencies:\n  - python=3.11\n",
		// Dart: name: and a dependencies: mapping.
		"app/pubspec.yaml": "name: app\ndependencies:\n  http: ^1.2.0\n",
		"patience.yaml":    oneDependency,
	}
	dir := t.TempDir()
	write(t, dir, files)
	in, err := LoadPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range in.Configs.Skipped {
		rel, _ := filepath.Rel(dir, s.Path)
		got[filepath.ToSlash(rel)] = s.Reason
	}
	for name, want := range map[string]string{
		"chart/requirements.yaml": "dependencies: entries with version: — another tool's file",
		"env/environment.yml":     "a top-level name: beside dependencies: or scenarios: — another tool's file",
		"app/pubspec.yaml":        "a top-level name: beside dependencies: or scenarios:",
	} {
		if !strings.HasPrefix(got[name], want) {
			t.Errorf("%s: skipped %q, want %q…", name, got[name], want)
		}
	}
	if len(in.Files) != 1 {
		t.Errorf("check files: %d, want patience.yaml alone", len(in.Files))
	}
	// Named, a requirements.yaml is held to a check file's rules.
	if _, err := LoadPaths([]string{filepath.Join(dir, "chart", "requirements.yaml")}); err == nil || !strings.Contains(err.Error(), "dependencies[0].version: unknown field") {
		t.Errorf("named: err = %v", err)
	}
	// A real check file with a misspelt key, found in a walk, is the loader's error.
	typo := t.TempDir()
	write(t, typo, map[string]string{"gate.yaml": "dependencies:\n  - name: api\n    polcy: {timeout: 1s}\n"})
	if _, err := LoadPaths([]string{typo}); err == nil || !strings.Contains(err.Error(), "polcy: unknown field (did you mean policy?") {
		t.Errorf("typo in a walk: err = %v", err)
	}
}
