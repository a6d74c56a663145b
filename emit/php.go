package emit

import "text/template"

// phpShared are the parts of the Guzzle and Laravel programs that are plain PHP: reading a
// Retry-After and the full-jitter backoff. Each target's template calls them.
const phpShared = `
{{define "phpHelpers" -}}
/** The wait a Retry-After asks for (seconds or an HTTP date), in ms; null when absent or unreadable. */
function retryAfterMs(?string $value): ?int
{
    if ($value === null || $value === '') {
        return null;
    }
    if (ctype_digit($value)) {
        return (int) $value * 1000;
    }
    $at = strtotime($value);
    return $at === false ? null : max(0, ($at - time()) * 1000);
}

/** The wait before attempt $n + 1, in ms: uniform in [0, min(cap, base·2^(n-1))]. */
function fullJitterMs(int $n): int
{
    return random_int(0, (int) min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** ($n - 1)));
}
{{- end}}
`

// phpTemplate parses one PHP target's template with the shared parts.
func phpTemplate(name, body string) *template.Template {
	t := template.Must(template.New(name).Funcs(codeFuncs).Parse(body))
	return template.Must(t.Parse(phpShared))
}
