// Package check is the policy gate behind `patience check`: the check file (patience.yaml),
// its strict loader, and the rules PT001–PT017 of docs/design.md §8 plus PT100 (an unmet scenario
// expectation). It computes findings; report/ renders them and cmd/ turns them into an exit
// code.
package check

import (
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// DefaultMaxAmplification is the amplification PT009 tolerates when the file does not say.
const DefaultMaxAmplification = policy.DefaultMaxAmplification

// DefaultCutoff is the share of good responses a timeout may cut off before PT010 fires:
// the same 0.1% (p99.9) that `probe` uses for its recommendation (docs/design.md §7).
const DefaultCutoff = 0.001

// HighVolumeRate is the declared caller rate (requests per second) from which PT012 calls a
// dependency high-volume: at 10/s an outage of one minute is 600 failing calls per caller,
// enough for unbudgeted retries to matter to the dependency.
const HighVolumeRate = 10.0

// File is one loaded check file.
type File struct {
	// Path is the file as named on the command line.
	Path string
	// MaxAmplification is the most attempts one user request may cause on a dependency.
	MaxAmplification    float64
	MaxAmplificationPos policy.Pos
	Dependencies        []*Dependency
	// Scenarios are replayed in the simulator; their `expect:` blocks become PT100 findings.
	Scenarios []ScenarioRef
	// Disabled rules never report; Levels override default levels.
	Disabled map[string]bool
	Levels   map[string]Severity
	// ignores maps a line to the rules `# patience:ignore` suppresses on it.
	ignores map[int]map[string]bool
}

// ScenarioRef is one entry of `scenarios:`, resolved relative to the check file.
type ScenarioRef struct {
	Path string
	Pos  policy.Pos
}

// Caller is who waits for the dependency.
type Caller struct {
	// Kind is "interactive" (a person or an upstream request waits Budget) or "job" (a queue
	// worker runs for at most Timeout per run, the queue re-delivers a run still going after
	// RetryAfter, and re-runs a failed job as Queue says).
	Kind       string
	Budget     time.Duration
	Timeout    time.Duration
	RetryAfter time.Duration
	// Rate is the declared request rate per second (0 = not declared).
	Rate float64
	// Queue is a job's own retries, the queue re-running the whole job (Laravel $tries,
	// backoff(), retryUntil(); release() counts as a try): MaxAttempts is the tries (0 = not
	// declared, policy.Unlimited for unlimited), Backoff/Base/Delays the wait before each
	// re-run (none when the file gives no backoff: the queue re-delivers at once), Jitter and
	// JitterFactor how it is spread. It is a layer of its own above the dependency's policy,
	// which holds the retries within one run (docs/design.md §5, "Queue jobs").
	Queue policy.Retry
	// RetryUntil is the job's retryUntil(): the queue stops re-running it that long after the
	// first dispatch, whatever tries are left (0 = not declared).
	RetryUntil time.Duration
}

// QueueRetries says whether the queue re-runs the job at all (tries above 1).
func (c Caller) QueueRetries() bool {
	return c.Kind == "job" && (c.Queue.MaxAttempts > 1 || c.Queue.MaxAttempts == policy.Unlimited)
}

// Limit is the caller's whole budget for one logical request: the interactive budget or the
// job timeout (0 = unknown).
func (c Caller) Limit() time.Duration {
	if c.Kind == "job" {
		return c.Timeout
	}
	return c.Budget
}

// Dependency is one external call and the policy that guards it.
type Dependency struct {
	Name    string
	Pos     policy.Pos
	Caller  Caller
	Request scenario.Request // method (default GET) and idempotency_key; no path in a check file
	// Profile is the probe profile (resolved relative to the file; "" = none).
	Profile string
	// Cutoff is the share of good responses a timeout may cut off (PT010); 0 = DefaultCutoff.
	Cutoff float64
	// Layers are the file's `layers:`: the callers above this dependency's policy, caller
	// first, each retrying on its own, as policy.Policy.Layers are for a scenario. A check
	// file says only how many attempts a layer makes, so each layer's Policy holds
	// Retry.MaxAttempts and its Source position ("retry.max_attempts") and nothing else:
	// enough for PT009's product, not a policy to simulate.
	Layers []policy.Layer
	// Via is the chain the call passes through, outermost first, read from real config
	// files; exactly one entry is Self (the dependency's own policy). Empty = no chain.
	Via    []ViaRef
	Policy *policy.Policy
	// Assumed are the defaults the file left to check that decide a rule (assume): the
	// JSON's checked[].assumed. Policy already holds them.
	Assumed []Assumed
	// declared is the policy as the file wrote it, before assume: what a later dependency's
	// `policy: NAME` or `base: NAME` inherits, so an assumption is never handed down as if
	// the file had written it.
	declared *policy.Policy
	// unsaid are the policy fields the file never wrote (unsaidFields), inherited ones
	// included: says reads it.
	unsaid map[string]bool
	// pos holds where this file set the dependency's own fields ("caller.timeout",
	// "request.method", "profile", "layers", "policy"), in the same form as Policy.Source.
	pos map[string]policy.Pos
	// policyFromCall marks a dependency with no policy: of its own whose via: names a call
	// site: the call's timeouts and layers are its policy.
	policyFromCall bool
}

// set says whether the file (or a preset or base: it names) set the policy field key, as
// opposed to the loader's default.
func (d *Dependency) set(key string) bool {
	if d.Policy == nil {
		return false
	}
	_, ok := d.Policy.Source[key]
	return ok
}

// at returns the position of the first key that was set, looking in the dependency's own
// fields and then in the policy's Source, falling back to the policy block and then the
// dependency itself.
func (d *Dependency) at(keys ...string) policy.Pos {
	for _, k := range keys {
		if p, ok := d.pos[k]; ok {
			return p
		}
		if d.Policy != nil {
			if p, ok := d.Policy.Source[k]; ok && p.Line > 0 {
				return p
			}
		}
	}
	if p, ok := d.pos["policy"]; ok {
		return p
	}
	return d.Pos
}
