package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patience-dev/patience/internal/corpus"
)

// Real files none of which is a check file or a config check reads: named alone, or found in
// a directory of symlinks to them, the run checks nothing, and that is an error saying why.
// Until issue 23, each of these passed with "✓ check passed" and exit 0.
func TestEmptyCorpusFilesAreNotAPass(t *testing.T) {
	cases := []struct {
		name, reason string
	}{
		// PROVENANCE.md is a Markdown table: line 5's "| file | repository |" is no YAML.
		{"PROVENANCE.md", "not YAML or JSON: line 5: mapping values are not allowed in this context"},
		// An ALB access log (elastic/beats x-pack/filebeat/module/aws/elb/test/
		// application-lb-http.log): space-separated fields, one plain YAML scalar per line.
		{"beats-alb.log", "no YAML mapping"},
		// k6 --out json writes one JSON object per line (k6 docs, results output "JSON":
		// "The JSON file will contain lines like these"): a stream, not one document.
		{"k6-out.json", "not YAML or JSON: line 1: did not find expected <document start>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := corpus.Path(t, c.name)
			res, err := emptyRun(t, []string{path}, false)
			if err != nil {
				t.Fatal(err)
			}
			if !res.NothingChecked || res.Error == nil || res.Outcome != OutcomeError || res.Error.File != path {
				t.Fatalf("nothing checked %v, error %+v, outcome %s", res.NothingChecked, res.Error, res.Outcome)
			}
			if len(res.Skipped) != 1 || res.Skipped[0].Path != path || res.Skipped[0].Reason != c.reason {
				t.Errorf("skipped %+v, want %q", res.Skipped, c.reason)
			}
		})
	}
}

// The same files in a directory: plain symlinks, and a ConfigMap mount's symlinks into
// ..data. A walk reads k6-out.json (.json) and skips it with the reason; the .md and .log are
// of no kind a walk reads; the run is an error either way.
func TestEmptyCorpusDirectoryOfLinks(t *testing.T) {
	names := []string{"PROVENANCE.md", "beats-alb.log", "k6-out.json"}
	targets := map[string]string{}
	for _, n := range names {
		targets[n] = corpus.Path(t, n)
	}
	t.Run("links", func(t *testing.T) {
		dir := t.TempDir()
		for n, target := range targets {
			symlink(t, target, filepath.Join(dir, n))
		}
		checkCorpusDir(t, dir)
	})
	t.Run("configmap", func(t *testing.T) {
		dir := t.TempDir()
		files := map[string]string{}
		for n, target := range targets {
			data, err := os.ReadFile(target)
			if err != nil {
				t.Fatal(err)
			}
			files[n] = string(data)
		}
		configMapMount(t, dir, files)
		checkCorpusDir(t, dir)
	})
}

func checkCorpusDir(t *testing.T, dir string) {
	t.Helper()
	res, err := emptyRun(t, []string{dir}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !res.NothingChecked || res.Error == nil || res.Error.File != dir || res.Summary.Read != 1 {
		t.Fatalf("nothing checked %v, error %+v, read %d", res.NothingChecked, res.Error, res.Summary.Read)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Path != filepath.Join(dir, "k6-out.json") || !strings.HasPrefix(res.Skipped[0].Reason, "not YAML or JSON") {
		t.Errorf("skipped %+v", res.Skipped)
	}
}

// Configs check reads that make no call chain alone: Bookinfo's four DestinationRules
// (istio/istio samples/bookinfo/networking/destination-rule-all.yaml: subsets by version
// label, no traffic policy at all) and ingress-nginx's custom-configuration ConfigMap
// (kubernetes/ingress-nginx docs/examples/customization/custom-configuration/configmap.yaml:
// proxy-connect-timeout 10, proxy-read-timeout and proxy-send-timeout 120, defaults for the
// locations of Ingresses, none here). Both passed with exit 0 and 0 chains; now the run is an
// error naming the resources read.
func TestEmptyCorpusConfigsAlone(t *testing.T) {
	for _, c := range []struct{ name, kinds string }{
		{"istio-dr-all.yaml", "DestinationRule/productpage, DestinationRule/reviews, DestinationRule/ratings, DestinationRule/details"},
		{"ingress-nginx-configmap.yaml", "ConfigMap/ingress-nginx-controller"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := corpus.Path(t, c.name)
			res, err := emptyRun(t, []string{path}, false)
			if err != nil {
				t.Fatal(err)
			}
			want := "nothing checked: 1 config file read (" + c.kinds + ") makes no call chain on its own (1 file read)"
			if res.Error == nil || !strings.HasPrefix(res.Error.Message, want) || res.Summary.Configs != 1 || res.Summary.Chains != 0 {
				t.Errorf("error %+v, configs %d, chains %d\nwant %q…", res.Error, res.Summary.Configs, res.Summary.Chains, want)
			}
		})
	}
}
