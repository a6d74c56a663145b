package sim

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/scenarios"
)

// TestBundledLessonVerdicts: every bundled scenario's recommended policy is judged good or
// degraded and its anti-patterns bad, read from the JSON a user gets (policies[].verdict.level),
// and the lesson line agrees (issue 12). The levels are the seeds' judgement, not the
// simulator's output copied back: a change that flips one is a change of the lesson.
func TestBundledLessonVerdicts(t *testing.T) {
	want := map[string]map[string]string{
		"delivery-date-hang":     {"no-timeout": "bad", "timeouts": "bad", "breaker-fallback": "bad", "bulkhead": "degraded"},
		"dripping-body":          {"read-timeout-only": "bad", "total-timeout": "degraded", "retry-deadline": "degraded"},
		"layered-retries":        {"retry-every-layer": "bad", "retry-one-layer": "degraded"},
		"llm-stream":             {"sdk-default-600s": "bad", "proxy-idle-60s": "bad", "first-event-bound": "degraded"},
		"payment-double-charge":  {"with-key": "good", "without-key": "bad", "no-retry": "bad"},
		"rate-limited":           {"honor": "bad", "ignore": "bad", "preset:retryablehttp": "bad", "capped": "good"},
		"retry-storm-10-servers": {"immediate": "bad", "exponential": "bad", "full-jitter": "good"},
		"shipping-queue":         {"job": "good", "immediate-retries": "bad"},
	}
	names := scenarios.Names()
	if len(names) != len(want) {
		t.Errorf("bundled scenarios %v, the table knows %d: add the new one's verdicts", names, len(want))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			sc, err := scenario.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			if sc.Lesson == nil {
				t.Fatal("a bundled scenario states its lesson (lesson: {recommends, why})")
			}
			res, err := Run(context.Background(), sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Policies []struct {
					Name    string `json:"name"`
					Verdict struct {
						Level string `json:"level"`
					} `json:"verdict"`
				} `json:"policies"`
				Lesson *struct {
					Recommends string `json:"recommends"`
					Level      string `json:"level"`
					Note       string `json:"note"`
				} `json:"lesson"`
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			for _, p := range doc.Policies {
				if w, ok := want[name][p.Name]; !ok {
					t.Errorf("%s: no expected verdict in the table", p.Name)
				} else if p.Verdict.Level != w {
					t.Errorf("%s: verdict %s, want %s", p.Name, p.Verdict.Level, w)
				}
			}
			if doc.Lesson == nil || doc.Lesson.Level == "bad" || doc.Lesson.Note != "" {
				t.Errorf("lesson %+v: the recommended policy must be the best judged, and not bad", doc.Lesson)
			}
		})
	}
}

// TestDefaultRetryOnRetries409: the default `on` list is the seeds' table, 409 included, so a
// single-row conflict (a lost optimistic write) is retried unless the file says never: [409].
func TestDefaultRetryOnRetries409(t *testing.T) {
	sc, err := scenario.Parse([]byte(`name: conflicts
duration: 1m
load: {clients: 4, rate: 20/s, request: {method: PUT}}
target:
  latency: {fixed: 50ms}
  conflicts: single-row
policies:
  - name: default-on
    timeout: 1s
    retry: {max_attempts: 5, base: 10ms, jitter: full}
  - name: never-409
    base: default-on
    retry: {never: [409]}
`), "conflicts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	def, never := res.Policies[0], res.Policies[1]
	if def.Attempts <= never.Attempts || def.Succeeded <= never.Succeeded {
		t.Errorf("default on: %d attempts, %d succeeded; never: [409]: %d attempts, %d succeeded — the default must retry 409",
			def.Attempts, def.Succeeded, never.Attempts, never.Succeeded)
	}
}
