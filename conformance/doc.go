// Package conformance checks patience's presets against the real libraries they are named
// after, at the versions pinned in this module's go.mod (a module of its own, so the main
// module's dependency set stays lean). Its tests drive each library two ways:
//
//  1. the library's own backoff and retry-decision code, with its defaults, sampled many
//     times and compared with policy.Call under the preset (per-retry delay bounds and means,
//     which outcomes are retried, quota costs);
//  2. the real client over loopback against an httptest (or gRPC) server that answers a
//     scripted sequence of responses, compared with the preset's schedule for the same
//     script (attempts, which waits, what reached the server — a POST without a key too).
//
// Run: cd conformance && go test ./... (-v prints the table preset × check → agree/differ).
package conformance
