package check

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/policy"
	"gopkg.in/yaml.v3"
)

// AWS SDK shared config (~/.aws/config) and AWS_RETRY_MODE / AWS_MAX_ATTEMPTS
// (docs/formats.md#retries-nobody-wrote, #aws-shared-config; AWS SDKs and Tools Reference Guide "Retry behavior";
// aws/aws-sdk-go-v2 aws/retry/standard.go; boto3 retries guide). max_attempts counts
// attempts, the first included. Only retry_mode and max_attempts are read: never a key.

// awsSection is an AWS config section header: [default], [profile NAME], [sso-session NAME],
// [services NAME].
var awsSection = regexp.MustCompile(`(?m)^\s*\[(default|profile [^\]]+|sso-session [^\]]+|services [^\]]+)\]\s*$`)

// looksINI says whether data is an AWS-style INI file.
func looksINI(data []byte) bool {
	return awsSection.Match(data) && bytes.Contains(data, []byte("="))
}

// parseAWSConfig reads each [default] / [profile NAME] section's retry_mode and max_attempts
// into a synthetic YAML mapping whose nodes carry the file's lines, so the AWS reader
// reports positions like every other reader. ok is false when no section holds either key.
func parseAWSConfig(cf *ConfigFile, data []byte) ([]*configDoc, bool) {
	var docs []*configDoc
	var cur *configDoc
	any := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxFileSize)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if m := awsSection.FindStringSubmatch(text); m != nil {
			cur = nil
			name, ok := strings.CutPrefix(m[1], "profile ")
			if m[1] == "default" || ok {
				if !ok {
					name = "default"
				}
				cur = &configDoc{file: cf, name: strings.TrimSpace(name), node: &yaml.Node{Kind: yaml.MappingNode, Line: line, Column: 1}, pos: policy.Pos{File: cf.Path, Line: line, Col: 1}}
				docs = append(docs, cur)
			}
			continue
		}
		if cur == nil || strings.HasPrefix(text, "#") || strings.HasPrefix(text, ";") {
			continue
		}
		k, v, ok := strings.Cut(text, "=")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if k != "retry_mode" && k != "max_attempts" {
			continue // never read other keys (credentials live in these files too)
		}
		v = strings.TrimSpace(v)
		if i := strings.IndexAny(v, "#;"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		col := strings.Index(sc.Text(), "=") + 2
		cur.node.Content = append(cur.node.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: k, Line: line, Column: 1},
			&yaml.Node{Kind: yaml.ScalarNode, Value: v, Line: line, Column: col})
		any = true
	}
	return docs, any
}

// awsDefaultAttempts are max_attempts when unset, by retry mode: standard and adaptive 3;
// legacy is SDK-specific (boto3 5, Java v2 4, Go v2 has none), counted as boto3's 5.
var awsDefaultAttempts = map[string]int{"standard": 3, "adaptive": 3, "legacy": 5}

// awsProfile is the profile the SDK loads: AWS_PROFILE, else AWS_DEFAULT_PROFILE, else
// "default" (aws/aws-sdk-go-v2 config/env_config.go: profileEnvKeys = AWS_PROFILE,
// AWS_DEFAULT_PROFILE; EnvConfig.SharedConfigProfile: "If not provided \"default\" will be
// used"), and where the choice came from.
func awsProfile(getenv func(string) string) (string, string) {
	for _, k := range []string{"AWS_PROFILE", "AWS_DEFAULT_PROFILE"} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return v, k + "=" + v
		}
	}
	return "default", "AWS_PROFILE unset"
}

// awsLayers reads one profile. The environment wins over the file (aws-sdk-go-v2 resolves
// the env config before the shared config): AWS_RETRY_MODE, AWS_MAX_ATTEMPTS.
//
// A value the SDK cannot parse fails only the profile that holds it: aws-sdk-go-v2
// (config/shared_config.go setFromIniSection) reads the selected profile's section alone and
// returns "failed to load retry_mode from shared config, unknown RetryMode, …" for it; every
// other profile loads as if the bad one were not there. So an unreadable value in the
// selected profile is an input error at its line; in another profile the layer says it
// cannot be loaded, counts no retries, and a via: that names it is an input error
// (ChainLayer.unloadable). Validation without a run (cs nil) knows no selection and rejects
// nothing a profile could hold.
func awsLayers(d *configDoc, cs *Configs) ([]*layerCandidate, error) {
	cf := d.file
	getenv := func(string) string { return "" }
	if cs != nil && cs.Getenv != nil {
		getenv = cs.Getenv
	}
	l := newLayer("aws-sdk", d.name, d.pos)
	l.answer = answerApp
	unloadable := func(n *yaml.Node, field, format string, a ...any) ([]*layerCandidate, error) {
		err := configError(cf, n, field, "profile %s: %s", d.name, fmt.Sprintf(format, a...))
		if cs == nil {
			return []*layerCandidate{{layer: l, names: []string{d.name}, doc: d}}, nil
		}
		if sel, why := awsProfile(getenv); sel == d.name {
			return nil, configError(cf, n, field, "profile %s (the one the SDK loads: %s): %s", d.name, why, fmt.Sprintf(format, a...))
		}
		l.unloadable = err
		l.addDefault("profile %s cannot be loaded: %s=%s at line %d (the SDK fails only when this profile is selected); no retries counted", d.name, field, scalar(n), n.Line)
		return []*layerCandidate{{layer: l, names: []string{d.name}, doc: d}}, nil
	}
	mode, modeFrom := "standard", "AWS SDK default (Go v2, JS v3, CLI): retry_mode standard"
	if v := get(d.node, "retry_mode"); v != nil {
		mode, modeFrom = scalar(v), "retry_mode "+scalar(v)
		if _, ok := awsDefaultAttempts[mode]; !ok {
			// aws/retry_mode.go ParseRetryMode: "standard" or "adaptive", else "unknown
			// RetryMode"; legacy is boto3's and Java v2's, accepted here for them.
			return unloadable(v, "retry_mode", "want standard, adaptive or legacy, got %q (aws-sdk-go-v2: \"unknown RetryMode\")", mode)
		}
	}
	if v := getenv("AWS_RETRY_MODE"); v != "" {
		mode, modeFrom = v, "AWS_RETRY_MODE="+v
		if _, ok := awsDefaultAttempts[mode]; !ok {
			return nil, configError(cf, nil, "AWS_RETRY_MODE", "want standard, adaptive or legacy, got %q", mode)
		}
	}
	attempts := awsDefaultAttempts[mode]
	l.retryDefault = true
	l.retryWhy = fmt.Sprintf("%s: %d attempts (no max_attempts)", modeFrom, attempts)
	if v := get(d.node, "max_attempts"); v != nil {
		// config/shared_config.go updateInt: a value that is not an integer fails the
		// profile; 0 is "not set" (EnvConfig/SharedConfig GetRetryMaxAttempts).
		n, err := strconv.Atoi(strings.TrimSpace(scalar(v)))
		switch {
		case err != nil || n < 0:
			return unloadable(v, "max_attempts", "want a whole number ≥ 1 (attempts, the first included), got %s", scalarKind(v))
		case n == 0:
			l.addDefault("max_attempts = 0 is unset to the SDK: %s's %d attempts", mode, attempts)
		default:
			attempts, l.retryAt, l.retryDefault = n, posOf(cf, v), false
			l.retryWhy = fmt.Sprintf("max_attempts = %d (attempts)", n)
		}
	}
	if l.retryDefault {
		l.addDefault("%s: %d attempts", modeFrom, attempts)
		if mode == "legacy" {
			l.addDefault("legacy mode is SDK-specific: boto3 5 attempts, Java v2 4 (DynamoDB 9); aws-sdk-go-v2 rejects it")
		}
	}
	if v := getenv("AWS_MAX_ATTEMPTS"); v != "" {
		// config/env_config.go setIntFromEnvVal: not an integer fails every profile;
		// GetRetryMaxAttempts: 0 is unset.
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return nil, configError(cf, nil, "AWS_MAX_ATTEMPTS", "want a whole number ≥ 1, got %q", v)
		}
		if n > 0 {
			attempts, l.retryDefault = n, false
			l.retryWhy = fmt.Sprintf("AWS_MAX_ATTEMPTS=%d (attempts)", n)
		}
	}
	// Every mode retries 5xx, throttling (429) and transient errors (standard.go: 500, 502,
	// 503, 504, RequestTimeout, throttle codes; boto3 legacy: 429, 500, 502, 503, 504, 509 and
	// connection errors); none retries a 4xx.
	l.retryClasses(attempts, []FailureClass{FailConnect, FailReset, FailTimeout, Fail5xx, Fail503, Fail429})
	r := &l.pol.Retry
	// Standard mode (aws/retry/standard.go): rand · 2^attempt seconds, capped at 20 s; a
	// retry quota of 500 tokens (5 per retry, 10 per timeout).
	r.Backoff, r.Base, r.Multiplier, r.Cap, r.Jitter = policy.BackoffExponential, time.Second, 2, 20*time.Second, policy.JitterFull
	r.NonIdempotent = policy.NonIdempotentAlways
	l.pol.Budget = &policy.Budget{Kind: policy.BudgetTokenBucket, Capacity: 500, RetryCost: 5, TimeoutCost: 10, Refill: 1}
	return []*layerCandidate{{layer: l, names: []string{d.name}, doc: d}}, nil
}
