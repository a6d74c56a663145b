// Package conformance checks patience's presets against the real libraries they are named
// after, at the versions pinned in this module's go.mod (a module of its own, so the main
// module's dependency set stays lean). Its tests drive each library two ways:
//
//  1. the library's own backoff and retry-decision code, with its defaults, sampled many
//     times and compared with policy.Call under the preset (per-retry delay bounds and means,
//     which outcomes are retried, quota costs);
//  2. the real client over loopback against an httptest (or gRPC) server that answers a
//     scripted sequence of responses, compared with the preset's schedule for the same
//     script (attempts, which waits, what reached the server — a POST without a key too);
//     and the real client (go-retryablehttp, the aws-sdk-go-v2 retry middleware, cenkalti
//     v4 and v5 driving net/http) against `patience serve`'s fault server (live.NewServer,
//     in-process, time compressed) on seven scenarios, compared with `patience replay` of
//     the same scenario under the preset, simulated and live: attempts per request, success
//     rate, median (give-up) latency, duplicate side effects, with tolerances from the
//     sampling error and the loopback cost measured during the run (serve_test.go);
//  3. sony/gobreaker v2 against policy.BreakerState on the same outcome sequences.
//
// Run: cd conformance && go test ./... (-v prints the table preset × check → agree/differ).
package conformance
