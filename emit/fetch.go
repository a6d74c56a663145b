package emit

import "fmt"

// fetchWriter writes the recommendation for Node's built-in fetch (undici, Node 20.3+ for
// AbortSignal.any): a CommonJS program (see js.go) that needs no package at all.
//
// fetch has no timeout knob: an AbortSignal is the only bound it takes. Without one, undici's
// defaults apply (headersTimeout and bodyTimeout 300 s, connect 10 s — measured: a body
// dripping a byte every 250 ms runs to its end). Its connect timeout, headersTimeout and
// bodyTimeout are options of undici's Agent, which Node 20 does not expose as a module without
// `npm install undici`: the program does not import it. The read timeout is written as an idle
// watchdog (a signal rearmed on every chunk); the connect timeout is said missing.
var fetchWriter = writer{target: Fetch, kind: KindCode, language: "javascript", write: writeFetch}

var fetchTmpl = jsTemplate("fetch", `{{comment .Header}}'use strict';
{{if .SendsKey}}
const crypto = require('node:crypto');
{{end}}
{{template "constants" .}}

{{template "helpers" .}}
{{if .ReadMs}}
// idleWatchdog aborts its signal after ms without a sign of life: armed before the call,
// rearmed when the head arrives and on every chunk of the body.
function idleWatchdog(ms) {
  const controller = new AbortController();
  let timer;
  const rearm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(new Error(´no byte for ${ms} ms´)), ms);
  };
  return { signal: controller.signal, rearm, stop: () => clearTimeout(timer) };
}
{{end}}
// attempt makes one call and says what it means; the body is read under the same signals.
async function attempt(limitMs{{if .SendsKey}}, key{{end}}) {
  const total = AbortSignal.timeout(limitMs); // total timeout: bounds the whole attempt, connect to the body's last byte (TIMEOUT_MS, less when the budget has less left)
{{- if .ReadMs}}
  const idle = idleWatchdog(READ_MS); // read timeout: bounds each silence — the wait for the head (connect included) and every pause in the body
  idle.rearm();
{{- end}}
  try {
    const res = await fetch(URL_TO_CALL, {
      method: METHOD,
{{- if .SendsKey}}
      headers: { 'Idempotency-Key': key },
{{- end}}
      signal: {{if .ReadMs}}AbortSignal.any([total, idle.signal]){{else}}total{{end}},
    });
{{- if .ReadMs}}
    idle.rearm();
{{- end}}
    if (res.body) {
      for await (const _ of res.body) {
{{- if .ReadMs}}
        idle.rearm();
{{- end}}
      }
    }
    return { ...judgeStatus(res.status, res.headers.get('retry-after')), status: res.status };
  } catch (err) {
    const code = err.cause && err.cause.code;
    if (CONNECT_ERRORS.includes(code)) return { retry: true, why: ´connect failed (${code})´, afterMs: 0 };
    let why = ´${code || err.name}: ${(err.cause && err.cause.message) || err.message}´;
    if (total.aborted) why = ´timed out after ${limitMs} ms (the attempt's total)´;
{{- if .ReadMs}}
    else if (idle.signal.aborted) why = ´read timed out: ${idle.signal.reason.message}´;
{{- end}}
    return { retry: RETRY_UNKNOWN, why, afterMs: 0 };
{{- if .ReadMs}}
  } finally {
    idle.stop();
{{- end}}
  }
}

{{template "main" .}}
`)

func writeFetch(in Input) (Emission, error) {
	p := newClientPlan(Fetch, "fetch", in)
	text, err := render(fetchTmpl, p)
	if err != nil {
		return Emission{}, err
	}
	set := []Setting{{Knob: "signal: AbortSignal.timeout", Value: p.perAttempt(p.msWords(p.TimeoutMs)), Bounds: "the whole attempt, connect to the body's last byte"}}
	if p.ReadMs > 0 {
		set = append(set, Setting{Knob: "signal: idleWatchdog (AbortSignal.any with the total)", Value: p.msWords(p.ReadMs), Bounds: "each silence: the wait for the head, connect included, and every pause in the body"})
	}
	set = append(set, loopSettings(p, "ATTEMPTS (the retry loop)", "BUDGET_MS (the loop's deadline)", "fullJitter", "retryAfterMs")...)
	missing := []string{"fetch has no timeout of its own: without a signal undici waits 300 s for the head and 300 s for each pause in the body; the program bounds each attempt with an AbortSignal.timeout"}
	if p.ReadMs > 0 {
		missing = append(missing, "fetch has no read timeout: the program rearms an idle watchdog on every chunk (undici's bodyTimeout needs its Agent, from `npm install undici`)")
	}
	if p.ConnectMs > 0 {
		missing = append(missing, fmt.Sprintf("fetch has no connect timeout (undici's is 10 s, set on its Agent: `new Agent({connect: {timeout: %d}})` from `npm install undici`, passed as `dispatcher`): the attempt's signal bounds the connect, and a connect that times out counts as a timeout, retried only when a timeout is", p.ConnectMs))
	}
	if p.Attempts > 1 {
		missing = append(missing, "fetch does not retry and keeps no deadline around a logical call: the program writes the loop, the backoff and the budget itself")
	}
	return Emission{Text: text, Settings: set, Missing: append(missing, jobMissing(p)...)}, nil
}
