package emit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// debianOkHttp is the class path of Debian's libokhttp-java (OkHttp 3.13.1 and its okio),
// which .ci/run installs with a JDK (11+).
var debianOkHttp = []string{"/usr/share/java/okhttp.jar", "/usr/share/java/okio.jar"}

// OkHttp in its real library: the program is compiled outside the timed run (javac), then run
// with java, the healthy run measuring the JVM's start.
func init() {
	check := [][]string{{"javac", "-version"}}
	for _, jar := range debianOkHttp {
		check = append(check, []string{"test", "-f", jar})
	}
	addRealClient(realClient{
		target:  OkHttp,
		file:    "PatienceCall.java",
		command: []string{"java"},
		check:   check,
		build:   buildJava,
	})
}

// buildJava compiles the program against OkHttp into dir and returns the command that runs it.
func buildJava(t *testing.T, dir, path string) []string {
	t.Helper()
	cp := strings.Join(debianOkHttp, string(os.PathListSeparator))
	out, err := exec.Command("javac", "-cp", cp, "-d", dir, path).CombinedOutput()
	if err != nil {
		t.Fatalf("javac %s: %v\n%s", filepath.Base(path), err, out)
	}
	return []string{"java", "-cp", cp + string(os.PathListSeparator) + dir, "PatienceCall"}
}
