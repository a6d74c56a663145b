// Package storm is `patience storm`'s library: retry amplification across many clients and
// layers against one finite-capacity dependency, and metastable collapse (issue 5, docs/design.md §3,
// §5, §6). It builds no engine of its own: every run goes through sim.RunPolicy.
//
//   - model.go: the quick model from flags (clients, rate, capacity as workers × a fixed
//     service time, queue, timeout, attempts per layer, outages and error bursts) into a
//     *scenario.Scenario.
//   - overrides.go: the command's flags as Overrides, applied to the quick model or to a
//     scenario (Apply) — the command fills the struct, the library applies it.
//   - mitigations.go: layered policies and the mitigations compared by default; how
//     --timeout and --attempts override a policy.
//   - recovery.go: the recovery rule (5 s moving average within 10% for 30 s after the last
//     fault) and metastability, on a per-second timeline.
//   - fluid.go: the fluid approximation and its closed forms (C/ΠN and the run-length
//     bound), with the derivation.
//   - bisect.go: stable_below_per_s by bisection over simulated runs.
//   - storm.go: Run, which simulates every policy on the same arrivals and analyses each;
//     result.go: the patience/storm/v1 result.
//   - parallel.go: the workers Run's simulations share, one per core — a policy's run and
//     each probe of its search are jobs, searches speculate on the probes they may need next,
//     and the result is the same bytes on any number of workers; a panic in a worker comes
//     back as a *PanicError.
package storm
