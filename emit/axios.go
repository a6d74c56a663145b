package emit

// axiosWriter writes the recommendation for axios in Node: a CommonJS program (see js.go).
//
// Measured with axios 1.x on Node 20 on loopback (emit/js_realclient_test.go): axios's
// `timeout` is an idle timer on the socket (req.setTimeout) — it fires on a silence longer
// than itself, before the head or in the body, and never bounds a body that keeps dripping;
// it is a read timeout, not a total. A total needs an AbortSignal; a connect timeout, which
// axios lacks, the agent's sockets (a timer until they connect).
var axiosWriter = writer{target: Axios, kind: KindCode, language: "javascript", write: writeAxios}

var axiosTmpl = jsTemplate("axios", `{{comment .Header}}'use strict';

{{if .SendsKey}}const crypto = require('node:crypto');
{{end}}{{if .ConnectMs}}const http = require('node:http');
const https = require('node:https');
{{end}}const axios = require('axios');

{{template "constants" .}}
{{if .ConnectMs}}
// connectTimeoutAgent gives each socket a timer that destroys it when not connected (TCP, and
// TLS for https) within ms: axios has no connect timeout of its own.
function connectTimeoutAgent(ms) {
  const tls = URL_TO_CALL.startsWith('https:');
  const agent = tls ? new https.Agent() : new http.Agent();
  const create = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => {
    const socket = create(options, callback);
    const timer = setTimeout(() => {
      const err = new Error(´connect timed out after ${ms} ms´);
      err.code = 'ECONNECTTIMEOUT';
      socket.destroy(err);
    }, ms);
    socket.once(tls ? 'secureConnect' : 'connect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
    return socket;
  };
  return agent;
}

// connect timeout: bounds each TCP (and TLS) handshake.
const agent = connectTimeoutAgent(CONNECT_MS);
{{end}}
{{template "helpers" .}}

// attempt makes one call and says what it means.
async function attempt(limitMs{{if .SendsKey}}, key{{end}}) {
  const signal = AbortSignal.timeout(limitMs);
  try {
    const res = await axios.request({
      url: URL_TO_CALL,
      method: METHOD,
{{- if .SendsKey}}
      headers: { 'Idempotency-Key': key },
{{- end}}
{{- if .ConnectMs}}
      httpAgent: agent,
      httpsAgent: agent,
{{- end}}
{{- if .ReadMs}}
      timeout: READ_MS, // read timeout: bounds each silence once connected — the wait for the head and every pause in the body; not a total
{{- end}}
      signal, // total timeout: bounds the whole attempt, connect to the body's last byte (TIMEOUT_MS, less when the budget has less left)
      validateStatus: () => true, // every status resolves: judgeStatus decides
    });
    return { ...judgeStatus(res.status, res.headers['retry-after']), status: res.status };
  } catch (err) {
    if (CONNECT_ERRORS.includes(err.code)) return { retry: true, why: ´connect failed (${err.code})´, afterMs: 0 };
    const why = signal.aborted
      ? ´timed out after ${limitMs} ms (the attempt's total)´
      : ´${err.code || err.name}: ${err.message}´;
    return { retry: RETRY_UNKNOWN, why, afterMs: 0 };
  }
}

{{template "main" .}}
`)

func writeAxios(in Input) (Emission, error) {
	p := newClientPlan(Axios, "axios", in)
	text, err := render(axiosTmpl, p)
	if err != nil {
		return Emission{}, err
	}
	var set []Setting
	if p.ConnectMs > 0 {
		set = append(set, Setting{Knob: "httpAgent / httpsAgent (a timer on each socket until it connects)", Value: p.msWords(p.ConnectMs), Bounds: "each TCP (and TLS) handshake"})
	}
	if p.ReadMs > 0 {
		set = append(set, Setting{Knob: "timeout", Value: p.msWords(p.ReadMs), Bounds: "each silence once connected: the wait for the response head and every pause in the body (an idle timer on the socket, not a total)"})
	}
	set = append(set, Setting{Knob: "signal: AbortSignal.timeout", Value: p.perAttempt(p.msWords(p.TimeoutMs)), Bounds: "the whole attempt, connect to the body's last byte"})
	set = append(set, loopSettings(p, "ATTEMPTS (the retry loop)", "BUDGET_MS (the loop's deadline)", "fullJitter", "retryAfterMs")...)
	missing := []string{
		"axios has no total timeout: `timeout` is an idle timer on the socket (measured: a body dripping a byte within it never times out); the program bounds each attempt with an AbortSignal.timeout",
	}
	if p.ConnectMs > 0 {
		missing = append(missing, "axios has no connect timeout: the program gives its http(s).Agent a timer that destroys a socket not connected in time")
	}
	if p.Attempts > 1 {
		missing = append(missing, "axios alone does not retry (axios-retry is a separate package) and keeps no deadline around a logical call: the program writes the loop, the backoff and the budget itself")
	}
	return Emission{Text: text, Settings: set, Missing: append(missing, jobMissing(p)...)}, nil
}
