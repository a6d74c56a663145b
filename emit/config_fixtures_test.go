package emit_test

import (
	"github.com/patience-dev/patience/emit"
	"github.com/patience-dev/patience/profile"
)

// configFixture is one fixed recommendation every config target is emitted from, for the
// goldens and the round trip through check.
type configFixture struct {
	name string
	in   emit.Input
}

// configFixtures are the brief's four callers: a GET from an interactive caller with two
// attempts (and a measured retry budget), a POST with an Idempotency-Key (no separate connect
// timeout recommended, no read timeout derived, no retry budget measured), a POST without a
// key (one attempt), and a queue job.
func configFixtures() []configFixture {
	read := 400.0
	budget := &profile.RetryBudget{RatePerS: 50, Concurrency: 4, Percent: 10, MinRetryConcurrency: 2, MinRetriesPerSecond: 1, MaxTokens: 20, TokenRatio: 0.2, OutageAmplification: 1.1}
	get := profile.Recommendation{
		ConnectTimeoutMs: 300, ReadTimeoutMs: &read, TimeoutMs: 800, MaxAttempts: 2, AttemptsFit: 2, BudgetMs: 2000, FitsBudget: true,
		Caller:      profile.CallerInfo{Kind: profile.CallerInteractive, Method: "GET", BudgetMs: 2000},
		RetryBudget: budget,
	}
	postKey := profile.Recommendation{
		TimeoutMs: 1500, MaxAttempts: 2, AttemptsFit: 2, BudgetMs: 4000, FitsBudget: true,
		Caller: profile.CallerInfo{Kind: profile.CallerInteractive, Method: "POST", IdempotencyKey: true, BudgetMs: 4000},
	}
	postNoKey := postKey
	postNoKey.MaxAttempts = 1
	postNoKey.Caller.IdempotencyKey = false
	job := profile.Recommendation{
		ConnectTimeoutMs: 1100, ReadTimeoutMs: &read, TimeoutMs: 2500, MaxAttempts: 1, AttemptsFit: 3, FitsBudget: true,
		Caller: profile.CallerInfo{Kind: profile.CallerJob, Method: "GET"},
		Job:    &profile.JobDesign{Tries: 4, BackoffMs: []float64{1000, 5000, 10000}, Jitter: "proportional", JitterFactor: 0.5, TimeoutMs: 2500, RetryAfterMs: 5000, GiveUpAfterMs: 34000},
	}
	return []configFixture{
		{"get-interactive", emit.Input{URL: "https://api.example.com/v1/items?limit=10", Method: "GET", Name: "items", Rec: get}},
		{"post-key", emit.Input{URL: "https://pay.example.com/v1/charges", Method: "POST", Name: "charges", Rec: postKey}},
		{"post-no-key", emit.Input{URL: "https://pay.example.com/v1/charges", Method: "POST", Name: "charges", Rec: postNoKey}},
		{"job", emit.Input{URL: "http://reports.internal:8080/export", Method: "GET", Name: "reports", Rec: job}},
	}
}
