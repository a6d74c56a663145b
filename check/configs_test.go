package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/internal/golden"
)

func noReplay(context.Context, string) (*Replay, error) {
	return nil, errors.New("no replay in config tests")
}

// runPaths loads paths as `patience check` does and runs every rule.
func runPaths(t *testing.T, paths ...string) *Result {
	t.Helper()
	in, err := LoadPaths(paths)
	if err != nil {
		t.Fatalf("LoadPaths: %v", err)
	}
	res, err := Run(context.Background(), in.Files, Options{Replay: noReplay, Configs: in.Configs})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// TestConfigGoldens reads each format's fixture (testdata/configs/FORMAT, written from the
// formats' documented examples, from the sources docs/formats.md#config-formats names) and compares the chains
// and findings with testdata/configs_FORMAT.golden (go test -update rewrites them).
func TestConfigGoldens(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "configs", "*"))
	if len(dirs) < 9 {
		t.Fatalf("want a fixture directory per format, got %v", dirs)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			res := runPaths(t, dir)
			out := struct {
				Configs  []ConfigFile  `json:"configs"`
				Skipped  []SkippedFile `json:"skipped,omitempty"`
				Chains   []Chain       `json:"chains"`
				Findings []string      `json:"findings"`
			}{res.Configs, res.Skipped, res.Chains, []string{}}
			for _, f := range res.Findings {
				out.Findings = append(out.Findings, fmt.Sprintf("%s:%d %s %s: %s", f.File, f.Line, f.Rule, f.Dependency, f.Message))
			}
			data, err := json.MarshalIndent(out, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, "configs_"+filepath.Base(dir), append(data, '\n'))
		})
	}
}

// TestChainRepro is the chain: ingress-nginx → the app's Http::retry(3) → an Istio
// sidecar with no retries → a partner, with defaults only (docs/formats.md#attempts-across-layers).
func TestChainRepro(t *testing.T) {
	res := runPaths(t, filepath.Join("testdata", "configs", "chain"))
	if len(res.Chains) != 1 {
		t.Fatalf("want one chain, got %d", len(res.Chains))
	}
	ch := res.Chains[0]
	want := Attempts{Connect: 9, Reset: 3, Timeout: 6, S5xx: 3, S503: 3, S429: 3, S4xx: 3}
	if diff := cmp.Diff(want, ch.Attempts); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	if ch.Uncapped.Timeout != 9 {
		t.Errorf("uncapped timeout %v, want 9 (3 nginx tries × 3 app attempts)", ch.Uncapped.Timeout)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, fmt.Sprintf("%s:%d %s", filepath.Base(f.File), f.Line, f.Rule))
		if f.Rule == "PT009" && f.Line == 11 && !strings.Contains(f.Message, "Istio default: 2 retries on connect-failure") {
			t.Errorf("PT009 on the VirtualService does not name Istio's default: %s", f.Message)
		}
	}
	for _, w := range []string{"partner-vs.yaml:11 PT009", "patience.yaml:13 PT007", "partner-dr.yaml:2 PT012", "patience.yaml:13 PT013", "partner-vs.yaml:11 PT001", "ingress.yaml:4 PT009"} {
		if !slices.Contains(got, w) {
			t.Errorf("no finding %s; got %v", w, got)
		}
	}
}

// TestConfigRuleFiles checks each directory under testdata/rules/configs as TestRuleFiles
// checks a rule file: every `# want: PT012` in any of its files must be a finding of that
// rule at that file and line, and every finding must be wanted.
func TestConfigRuleFiles(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "rules", "configs", "*"))
	if len(dirs) == 0 {
		t.Fatal("no config rule directories")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want := []string{}
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range wantedFindings(data) {
					want = append(want, filepath.Base(f)+":"+w)
				}
			}
			res := runPaths(t, dir)
			got := []string{}
			for _, f := range res.Findings {
				got = append(got, fmt.Sprintf("%s:%d %s", filepath.Base(f.File), f.Line, f.Rule))
			}
			slices.Sort(want)
			slices.Sort(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("findings as \"FILE:LINE RULE\" (-want +got):\n%s", diff)
				for _, f := range res.Findings {
					t.Logf("%s:%d %s: %s", f.File, f.Line, f.Rule, f.Message)
				}
			}
		})
	}
}

// TestSkippedNotAnError: a directory with files of no format check reads lists them as
// skipped and still runs.
func TestSkippedNotAnError(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "deploy.yaml"), []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "chart.yaml"), []byte("{{ .Values.x }}: [\n"), 0o644)
	res := runPaths(t, dir)
	if len(res.Skipped) != 2 || !strings.Contains(res.Skipped[1].Reason, "Deployment") {
		t.Errorf("skipped %+v", res.Skipped)
	}
}

// fuzzConfig is every reader's fuzz body: whatever the bytes, ParseConfig and the chains it
// infers never panic, and an error is an input error with the file's name.
func fuzzConfig(f *testing.F, path string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	if data, err := os.ReadFile(path); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		cf, _, err := ParseConfig("f", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		if cf == nil {
			return
		}
		cs := NewConfigs()
		cs.add(cf)
		chains, err := cs.inferred()
		if err != nil {
			return
		}
		for _, ch := range chains {
			ch.compute()
		}
	})
}

func FuzzEnvoy(f *testing.F) {
	fuzzConfig(f, "testdata/configs/envoy/envoy.yaml", "virtual_hosts: [{routes: [{route: {retry_policy: {num_retries: 3}}}]}]")
}

func FuzzIstio(f *testing.F) {
	fuzzConfig(f, "testdata/configs/istio/ratings.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nspec: {http: [{retries: {attempts: 2}}]}\n")
}

func FuzzGatewayAPI(f *testing.F) {
	fuzzConfig(f, "testdata/configs/gateway/httproute.yaml")
}

func FuzzLinkerd(f *testing.F) {
	fuzzConfig(f, "testdata/configs/linkerd/linkerd.yaml")
}

func FuzzIngressNginx(f *testing.F) {
	fuzzConfig(f, "testdata/configs/nginx/ingress.yaml")
}

func FuzzGRPCServiceConfig(f *testing.F) {
	fuzzConfig(f, "testdata/configs/grpc/service_config.json", `{"methodConfig": [{"retryPolicy": {"maxAttempts": 9}}]}`)
}

func FuzzDapr(f *testing.F) {
	fuzzConfig(f, "testdata/configs/dapr/resiliency.yaml")
}

func FuzzResilience4j(f *testing.F) {
	fuzzConfig(f, "testdata/configs/resilience4j/application.yml")
}

func FuzzAWSConfig(f *testing.F) {
	fuzzConfig(f, "testdata/configs/aws/config", "[default]\nmax_attempts = x\n")
}
