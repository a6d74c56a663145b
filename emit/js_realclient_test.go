package emit

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The JavaScript targets in their real runtimes: fetch needs node alone (20.3+ for
// AbortSignal.any); axios needs the axios package, which .ci/run installs with npm into the
// node_modules folder PATIENCE_NODE_MODULES names, linked here into the program's folder.
func init() {
	addRealClient(realClient{
		target:  Fetch,
		file:    "call.js",
		command: []string{"node"},
		check:   [][]string{{"node", "-e", "if (typeof AbortSignal.any !== 'function') { console.error('AbortSignal.any missing: Node 20.3+ needed'); process.exit(1); }"}},
	})
	addRealClient(realClient{
		target:  Axios,
		file:    "call.js",
		command: []string{"node"},
		check:   [][]string{{"node", "-e", axiosCheck}},
		setup:   linkNodeModules,
	})
}

// axiosCheck fails, saying why, when PATIENCE_NODE_MODULES is unset or holds no axios.
const axiosCheck = `const dir = process.env.PATIENCE_NODE_MODULES;
if (!dir) { console.error('PATIENCE_NODE_MODULES is unset: .ci/run sets it to the node_modules folder where it ran npm install axios@1'); process.exit(1); }
try { require(require('path').join(dir, 'axios')); } catch (e) { console.error('no axios in ' + dir + ': ' + e.message); process.exit(1); }`

// linkNodeModules links PATIENCE_NODE_MODULES as dir/node_modules, where require('axios')
// looks first.
func linkNodeModules(t *testing.T, dir string) {
	t.Helper()
	src := os.Getenv("PATIENCE_NODE_MODULES")
	if src == "" {
		t.Fatal("PATIENCE_NODE_MODULES is unset")
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(abs, "axios")); errors.Is(err, os.ErrNotExist) {
		t.Fatalf("PATIENCE_NODE_MODULES=%s holds no axios", src)
	}
	if err := os.Symlink(abs, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
}
