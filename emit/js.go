package emit

import (
	"strings"
	"text/template"
)

// jsShared are the parts of the axios and fetch programs that are plain Node, not the
// library: the figures, the Retry-After reading, the full-jitter backoff and the loop that
// runs the attempts within the budget. Each target's template defines "attempt" (one
// attempt in the library's knobs) and "judgeError" (what a failed attempt means) and calls
// these. CommonJS, not ESM: `node call.js` runs it with no package.json beside it, and
// require() finds axios in the node_modules next to the file.
const jsShared = `
{{define "constants" -}}
// The recommendation's figures, in milliseconds.
const URL_TO_CALL = {{str .URL}};
const METHOD = {{str .Method}};
{{- if .ConnectMs}}
const CONNECT_MS = {{.ConnectMs}};
{{- end}}
{{- if .ReadMs}}
const READ_MS = {{.ReadMs}};
{{- end}}
const TIMEOUT_MS = {{.TimeoutMs}};
const ATTEMPTS = {{.Attempts}};
{{- if .BudgetMs}}
const BUDGET_MS = {{.BudgetMs}};
{{- else}}
const BUDGET_MS = Infinity; // a job: no deadline around the call, the queue's job timeout bounds the run
{{- end}}
const BACKOFF_BASE_MS = {{.BaseMs}};
const BACKOFF_CAP_MS = {{.CapMs}};
const RETRY_UNKNOWN = {{.RetryUnknown}}; // whether a timeout or a reset, whose outcome is unknown, is retried
const RETRIED_STATUSES = [{{ints .Statuses}}];
const CONNECT_ERRORS = ['ECONNREFUSED', 'ECONNECTTIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'];
{{- end}}

{{define "helpers" -}}
// retryAfterMs reads a Retry-After header (seconds or an HTTP date); null when absent or unreadable.
function retryAfterMs(value) {
  if (value === undefined || value === null || value === '') return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

// judgeStatus says what a response means: done on a 2xx; retried on a retried status, or on
// a 429 that says when to come back; given up on any other.
function judgeStatus(status, retryAfter) {
  if (status >= 200 && status < 300) return { ok: true };
  const afterMs = retryAfterMs(retryAfter);
  if (RETRIED_STATUSES.includes(status) || (status === 429 && afterMs !== null)) {
    return { retry: true, why: ´status ${status}´, afterMs: afterMs ?? 0 };
  }
  return { retry: false, why: ´status ${status}´ };
}

// fullJitter is the wait before attempt n+1: uniform in [0, min(cap, base·2^(n-1))].
function fullJitter(n) {
  return Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (n - 1));
}

function fail(why) {
  console.error(´gave up: ${why}´);
  return 1;
}
{{- end}}

{{define "main" -}}
// main runs the attempts: each bounded by the total timeout and by what is left of the
// budget; a wait runs only when it fits what is left, else the program gives up.
async function main() {
  const start = performance.now();
  const left = () => BUDGET_MS - (performance.now() - start);
{{- if .SendsKey}}
  const key = crypto.randomUUID();
{{- end}}
  for (let n = 1; ; n += 1) {
    const limitMs = Math.min(TIMEOUT_MS, Math.floor(left()));
    if (limitMs <= 0) return fail(´the ${BUDGET_MS} ms budget ran out before attempt ${n}´);
    const v = await attempt(limitMs{{if .SendsKey}}, key{{end}});
    if (v.ok) {
      console.log(v.status);
      return 0;
    }
    if (!v.retry) return fail(´attempt ${n}: ${v.why}´);
    if (n >= ATTEMPTS) return fail(´attempt ${n}: ${v.why}; ${ATTEMPTS} attempt(s) made´);
    const waitMs = Math.max(fullJitter(n), v.afterMs);
    if (waitMs >= left()) {
      return fail(´attempt ${n}: ${v.why}; a ${Math.round(waitMs)} ms wait does not fit the ${Math.round(left())} ms left of the budget´);
    }
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}

main().then((code) => process.exit(code), (err) => {
  console.error(err);
  process.exit(1);
});
{{- end}}
`

// jsTemplate parses one JavaScript target's template with the shared parts. The templates
// spell JavaScript's backtick as ´ (a Go raw string cannot hold one).
func jsTemplate(name, body string) *template.Template {
	t := template.Must(template.New(name).Funcs(codeFuncs).Parse(backticks(body)))
	return template.Must(t.Parse(backticks(jsShared)))
}

func backticks(s string) string { return strings.ReplaceAll(s, "´", "`") }
