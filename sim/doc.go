// Package sim is the deterministic discrete-event simulator behind `patience replay` and
// `patience storm` (docs/design.md §6). Time is virtual: one event heap, no goroutine per request,
// so ten minutes of a hundred clients take well under a second and the same scenario and
// seed always give byte-identical results.
//
// Model, in the detail docs/design.md §6 leaves out:
//
//   - Arrivals. Open model: Poisson arrivals at load.rate across all clients; each arrival
//     picks its client uniformly at random from the arrival stream. Closed model:
//     load.concurrency loops (request → think → request) dealt round-robin over clients.
//     Burst: load.burst requests at t=0, clients round-robin.
//   - Common random numbers. Arrivals, each client's jitter, and the target draws come from
//     separate PCG streams derived from the seed; the target draws of attempt j of logical
//     request i come from a generator seeded by (seed, i, j), so every policy sees the same
//     arrivals and the same target behaviour for the same request and attempt, and adding a
//     client or a policy reshuffles nothing else.
//   - Target. An attempt first connects (target.connect); the phase and fault in force when
//     it arrives decide what happens: a status fault answers at once (with Retry-After when
//     set; the HTTP-date form is written relative to a fixed epoch plus virtual now), hang
//     never answers, refuse fails the connect, reset drops the connection after the server
//     processed the request (the dangerous "outcome unknown" case). Otherwise the request is
//     served with a latency drawn from the phase (or base) distribution, through the
//     capacity's workers and FIFO queue when set (overflow answers 503 at once). Stall phases
//     pause service; work resumes when the phase ends. Work continues after the caller gave
//     up: it is counted as wasted work. A drip fault answers its head at once (no capacity, no
//     key, no side effect, as serve) and its body a piece every Drip.Every.
//   - Timeouts of an attempt (read.go, attemptEnd). The total fires at the attempt's
//     deadline; the read timeout at the first silence of at least ReadTimeout from the
//     request's write — the wait for the head (queue and stalls included), then each pause
//     of a drip's body. The one due first ends the attempt as a Timeout; a read timeout's
//     failure reason is read_timeout.
//   - Streams (stream.go, streamEnd; docs/design.md §6). A stream target's answer is its head
//     once served, then a stream drawn as serve plans one: the first event, the gaps, a drop or
//     a stall. The read timeout is the idle timeout (the first event and every gap), the total
//     as before; a drop is a reset with reason stream_cut. A retry after the first event
//     restarts the stream (streams.restarted, streams.events_wasted), and a success's latency
//     is its wait for the first event (latency_from "first_event").
//   - Layers. An attempt at layer k issues a whole logical request at layer k+1 with that
//     layer's policy. When an upper layer's attempt times out, the lower call is abandoned
//     but keeps retrying — in reality it does not know — so its attempts still reach the
//     target. A lower call's final failure reaches the layer above as the same outcome (a
//     proxy passing the status through).
//   - Workers. A client worker is held by the caller's logical request from arrival to its
//     end, through timeouts and backoff sleeps; an arrival that finds every worker busy fails
//     with reason no_worker.
//   - Idempotency. With a key the target deduplicates (same key in flight → 409, done → the
//     stored response, no second side effect). Without a key, every execution of a
//     non-idempotent request after the first counts one duplicate.
//   - Drain. Arrivals stop at duration; the run stops when nothing is left to do or at
//     duration + drain; logical requests still in flight then fail with reason stuck.
package sim
