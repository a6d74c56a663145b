package emit

import (
	"os"
	"path/filepath"
	"testing"
)

// debianGuzzle is the autoloader of Debian's php-guzzlehttp-guzzle (Guzzle 7.4, with its
// psr7 and promises packages), which .ci/run installs with php-cli and php-curl.
const debianGuzzle = "/usr/share/php/GuzzleHttp/autoload.php"

// Guzzle in its real library, on its curl handler (without php-curl Guzzle falls back to PHP's
// stream wrapper, whose timeouts differ: the check refuses it). Laravel is not run: it needs
// the framework; its programs are checked with php -l (php_test.go).
func init() {
	addRealClient(realClient{
		target:  Guzzle,
		file:    "call.php",
		command: []string{"php"},
		check: [][]string{
			{"php", "-r", `if (!extension_loaded("curl")) { fwrite(STDERR, "php-curl missing: Guzzle would not use its curl handler\n"); exit(1); }`},
			{"php", "-r", `if (!is_file("` + debianGuzzle + `")) { fwrite(STDERR, "` + debianGuzzle + ` missing (php-guzzlehttp-guzzle)\n"); exit(1); }`},
		},
		setup: writeGuzzleAutoload,
	})
}

// writeGuzzleAutoload writes dir/vendor/autoload.php, where the program looks for composer's
// autoloader, requiring Debian's.
func writeGuzzleAutoload(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "vendor"), 0o755); err != nil {
		t.Fatal(err)
	}
	php := "<?php\nrequire_once '" + debianGuzzle + "';\n"
	if err := os.WriteFile(filepath.Join(dir, "vendor", "autoload.php"), []byte(php), 0o644); err != nil {
		t.Fatal(err)
	}
}
