package check

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/patience-dev/patience/internal/corpus"
	"github.com/patience-dev/patience/scenario"
)

// awsRun reads an AWS shared config with env and returns the layers by profile, or the
// run's error (what inferred() returns, as check's run does).
func awsRun(t *testing.T, path string, data []byte, env map[string]string) (map[string]*ChainLayer, error) {
	t.Helper()
	cf, reason, err := ParseConfig(path, data)
	if err != nil || cf == nil {
		t.Fatalf("ParseConfig rejects the file (%v %s): the SDK validates only the selected profile", err, reason)
	}
	cs := NewConfigs()
	cs.Getenv = func(k string) string { return env[k] }
	cs.add(cf)
	chains, err := cs.inferred()
	if err != nil {
		return nil, err
	}
	out := map[string]*ChainLayer{}
	for _, ch := range chains {
		out[ch.Dependency] = &ch.Layers[0]
	}
	return out, nil
}

const awsProfilesINI = `[default]
region = us-east-1

[profile good]
retry_mode = adaptive
max_attempts = 4

[profile badmode]
retry_mode = bogus

[profile badattempts]
max_attempts = many

[profile zero]
max_attempts = 0
`

// TestAWSProfilesOneByOne: aws-sdk-go-v2 loads the selected profile alone
// (config/shared_config.go setFromIniSection on that section: "failed to load retry_mode from
// shared config, unknown RetryMode" from aws/retry_mode.go ParseRetryMode, and updateInt's
// error for max_attempts), chosen by AWS_PROFILE, else AWS_DEFAULT_PROFILE, else "default"
// (config/env_config.go profileEnvKeys). So a bad value fails the run only when its profile
// is the one loaded, at its line; the other profiles are read as usual.
func TestAWSProfilesOneByOne(t *testing.T) {
	data := []byte(awsProfilesINI)
	layers, err := awsRun(t, "config", data, nil)
	if err != nil {
		t.Fatalf("default selected, bad profiles elsewhere: %v", err)
	}
	if got := layers["good"].retryOf(FailTimeout); got != 4 {
		t.Errorf("good: %d attempts, want max_attempts 4", got)
	}
	if got := layers["default"].retryOf(Fail503); got != 3 {
		t.Errorf("default: %d attempts, want standard's 3", got)
	}
	// max_attempts = 0 is unset to the SDK (GetRetryMaxAttempts: "if was specified, and not 0").
	if got := layers["zero"].retryOf(Fail503); got != 3 {
		t.Errorf("zero: %d attempts, want standard's 3", got)
	}
	for name, line := range map[string]int{"badmode": 9, "badattempts": 12} {
		l := layers[name]
		if l == nil || l.unloadable == nil || l.retries() {
			t.Fatalf("%s: %+v, want a layer that cannot be loaded and counts no retries", name, l)
		}
		if d := strings.Join(l.Defaults, " "); !strings.Contains(d, "cannot be loaded") {
			t.Errorf("%s defaults %q do not say so", name, d)
		}
		var se *scenario.Error
		if !errors.As(l.unloadable, &se) || se.Line != line {
			t.Errorf("%s: %v, want an error at line %d", name, l.unloadable, line)
		}
	}
	for env, want := range map[string]string{"AWS_PROFILE": "config:9:", "AWS_DEFAULT_PROFILE": "config:9:"} {
		_, err := awsRun(t, "config", data, map[string]string{env: "badmode"})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "retry_mode") || !strings.Contains(err.Error(), env+"=badmode") {
			t.Errorf("%s=badmode: %v, want the input error at %s retry_mode naming the selection", env, err, want)
		}
	}
	// The environment wins over the file (env config is resolved first); AWS_MAX_ATTEMPTS=0
	// is unset (EnvConfig.GetRetryMaxAttempts).
	layers, err = awsRun(t, "config", data, map[string]string{"AWS_MAX_ATTEMPTS": "7"})
	if err != nil || layers["good"].retryOf(Fail503) != 7 {
		t.Errorf("AWS_MAX_ATTEMPTS=7: %v", err)
	}
	layers, err = awsRun(t, "config", data, map[string]string{"AWS_MAX_ATTEMPTS": "0"})
	if err != nil || layers["good"].retryOf(Fail503) != 4 {
		t.Errorf("AWS_MAX_ATTEMPTS=0: %v, want the profile's 4", err)
	}
	if _, err := awsRun(t, "config", data, map[string]string{"AWS_PROFILE": "badattempts"}); err == nil || !strings.Contains(err.Error(), "config:12:") {
		t.Errorf("AWS_PROFILE=badattempts: %v, want the error at line 12", err)
	}
}

// TestAWSViaUnloadableProfile: a check file whose via: names a profile the SDK cannot load is
// an input error at that profile's line, not a chain of one attempt.
func TestAWSViaUnloadableProfile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "aws-config"), []byte(awsProfilesINI), 0o644); err != nil {
		t.Fatal(err)
	}
	check := "dependencies:\n  - name: s3\n    via:\n      - {file: aws-config, name: badmode}\n      - {self: true}\n    policy:\n      timeout: 2s\n      retry: {max_attempts: 1}\n"
	if err := os.WriteFile(filepath.Join(dir, "patience.yaml"), []byte(check), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := LoadPaths([]string{filepath.Join(dir, "patience.yaml")})
	if err != nil {
		t.Fatalf("LoadPaths: %v", err)
	}
	_, err = Run(t.Context(), in.Files, Options{Replay: noReplay, Configs: in.Configs})
	if err == nil || !strings.Contains(err.Error(), "aws-config:9:") || !strings.Contains(err.Error(), "badmode") {
		t.Errorf("Run: %v, want the input error at aws-config:9 for profile badmode", err)
	}
}

// TestAWSSharedConfigCorpus reads aws-sdk-go-v2's own shared-config test file
// (config/testdata/shared_config @000ee9f). It holds 74 sections, among them
// [profile retrywithinvalidmode] retry_mode = invalid (line 271) and
// [profile retrywithinvalidattempts] max_attempts = invalid (line 274), which the SDK's own
// tests expect to fail only when that profile is loaded (shared_config_test.go). Check used
// to reject the whole file at line 271.
func TestAWSSharedConfigCorpus(t *testing.T) {
	path := corpus.Path(t, "aws-sdk-go-v2-shared_config")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	layers, err := awsRun(t, path, data, nil)
	if err != nil {
		t.Fatalf("default profile selected: %v", err)
	}
	// [profile retrywithstandard] retry_mode = standard, max_attempts = 5;
	// [profile retrywithadaptive] retry_mode = adaptive, max_attempts = 4.
	for name, want := range map[string]int{"retrywithstandard": 5, "retrywithadaptive": 4, "default": 3} {
		if l := layers[name]; l == nil || l.retryOf(Fail503) != want {
			t.Errorf("%s: %v, want %d attempts", name, l, want)
		}
	}
	for name, line := range map[string]int{"retrywithinvalidmode": 271, "retrywithinvalidattempts": 274} {
		if l := layers[name]; l == nil || l.unloadable == nil || !strings.Contains(l.unloadable.Error(), ":"+strconv.Itoa(line)+":") {
			t.Errorf("%s: %v, want unloadable at line %d", name, l, line)
		}
	}
	_, err = awsRun(t, path, data, map[string]string{"AWS_PROFILE": "retrywithinvalidmode"})
	if err == nil || !strings.Contains(err.Error(), ":271:") {
		t.Errorf("AWS_PROFILE=retrywithinvalidmode: %v, want the error at line 271", err)
	}
}
