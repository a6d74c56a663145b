package emit

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// laravelWriter writes the recommendation for Laravel's HTTP client (10+, on Guzzle), in the
// seeds' two shapes: for an interactive caller a console command (routes/console.php, `php
// artisan patience:call`) making the call with Http::connectTimeout()->timeout()->retry();
// for a job caller a ShouldQueue job whose queue retries, one call per run.
//
// From Laravel's source (Illuminate\Http\Client\PendingRequest::send and the retry() helper):
// retry($times) counts every try, the first included; the `when` callback sees each failure
// (a non-2xx response as its exception) and the sleep closure runs after it; with throw:
// false the last response is returned, but a ConnectionException (a connect failure or a
// timeout: Laravel does not tell them apart) is always thrown. Illuminate\Queue\Worker does
// not count $tries while retryUntil() lies ahead. It is not run here (no framework): its
// programs are checked with php -l.
var laravelWriter = writer{target: Laravel, kind: KindCode, language: "php", write: writeLaravel}

var laravelCommandTmpl = phpTemplate("laravel", `<?php

{{comment .Header}}
// Paste into routes/console.php; run with `+"`php artisan patience:call`"+`.

use Illuminate\Http\Client\ConnectionException;
use Illuminate\Http\Client\PendingRequest;
use Illuminate\Http\Client\RequestException;
use Illuminate\Support\Facades\Artisan;
use Illuminate\Support\Facades\Http;
{{- if .SendsKey}}
use Illuminate\Support\Str;
{{- end}}

// The recommendation's figures.
const PATIENCE_URL = {{phpstr .URL}};
const PATIENCE_METHOD = {{phpstr .Method}};
const BUDGET_S = {{seconds .BudgetMs}};
const TIMEOUT_S = {{seconds .TimeoutMs}};
const BACKOFF_BASE_MS = {{.BaseMs}};
const BACKOFF_CAP_MS = {{.CapMs}};
const RETRIED_STATUSES = [{{ints .Statuses}}];

{{template "phpHelpers" .}}

Artisan::command('patience:call', function (): int {
    $start = hrtime(true);
    $left = fn (): float => BUDGET_S - (hrtime(true) - $start) / 1e9; // seconds left of the budget
    $waitMs = 0;
    $failures = 0;

    // Whether a failure is retried: a retried status, a 429 with a Retry-After, a connection
    // failure (a connect failure or a timeout: Laravel throws one ConnectionException for
    // both{{if .RetryUnknown}}, and retrying either is safe here{{end}}) — and only when the wait fits the budget.
    $when = function (Throwable $e, PendingRequest $request) use (&$waitMs, &$failures, $left): bool {
        $failures++;
        $afterMs = 0;
        if ($e instanceof RequestException) {
            $status = $e->response->status();
            $after = retryAfterMs($e->response->header('Retry-After'));
            if (!in_array($status, RETRIED_STATUSES, true) && !($status === 429 && $after !== null)) {
                return false;
            }
            $afterMs = $after ?? 0;
        } elseif (!$e instanceof ConnectionException) {
            return false;
        }
        $waitMs = max(fullJitterMs($failures), $afterMs);
        return $waitMs / 1000 < $left();
    };

    try {
        $response = Http::timeout(TIMEOUT_S) // total timeout: bounds the whole attempt, connect to the body's last byte (Guzzle's timeout, curl's CURLOPT_TIMEOUT_MS)
{{- if .ConnectMs}}
            ->connectTimeout({{seconds .ConnectMs}}) // connect timeout: bounds the TCP (and TLS) handshake
{{- end}}
{{- if .SendsKey}}
            ->withHeaders(['Idempotency-Key' => (string) Str::uuid()])
{{- end}}
            ->withMiddleware(fn (callable $handler): callable => function ($request, array $options) use ($handler, $left) {
                $options['timeout'] = max(0.001, min(TIMEOUT_S, $left())); // each attempt within what is left of the budget
                return $handler($request, $options);
            })
            ->retry({{.Attempts}}, function () use (&$waitMs): int {
                return $waitMs;
            }, $when, throw: false) // tries: bounds the attempts, the first included; the sleep is the wait $when chose
            ->send(PATIENCE_METHOD, PATIENCE_URL);
    } catch (ConnectionException $e) {
        fwrite(STDERR, 'gave up: ' . $e->getMessage() . "\n");
        return 1;
    }
    if ($response->successful()) {
        $this->line((string) $response->status());
        return 0;
    }
    fwrite(STDERR, 'gave up: status ' . $response->status() . "\n");
    return 1;
});
`)

var laravelJobTmpl = phpTemplate("laravel-job", `<?php

{{comment .Header}}
// Paste into app/Jobs/PatienceCallJob.php; dispatch with `+"`PatienceCallJob::dispatch({{if .SendsKey}}$key{{end}})`"+`.

namespace App\Jobs;

use DateTimeInterface;
use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Http\Client\ConnectionException;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Support\Facades\Http;
use RuntimeException;
use Throwable;

final class PatienceCallJob implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable;

    // The queue connection's retry_after (config/queue.php) must exceed $timeout: {{.RetryAfterS}} s, or a
    // run still going is delivered a second time.

    public int $tries = {{.Tries}}; // tries: bounds the runs, the first included — read only when retryUntil() is absent

    public int $maxExceptions = {{.Tries}}; // bounds the runs that fail with an exception; a release() after a 429 is not one

    public int $timeout = {{.JobTimeoutS}}; // job timeout: bounds one run (the worker kills it past this), above the call's {{.TimeoutS}} s total
{{if .SendsKey}}
    /** One key per logical call: made by the dispatcher, the same on every run. */
    public function __construct(public readonly string $idempotencyKey)
    {
    }
{{end}}
    /** @return list<int> */
    public function backoff(): array
    {
        // backoff: bounds the wait before each re-run — d + U[0, {{.JitterPct}}% of d] seconds, computed when
        // dispatched, so jobs that failed together do not come back together.
        return array_map(
            fn (int $seconds): int => $seconds + random_int(0, intdiv($seconds * {{.JitterPct}}, 100)),
            [{{.BackoffS}}],
        );
    }

    public function retryUntil(): DateTimeInterface
    {
        return now()->addSeconds({{.GiveUpS}}); // bounds the whole retrying: every run at its timeout, every wait at its jitter bound
    }

    public function handle(): void
    {
        try {
            $response = Http::timeout({{seconds .TimeoutMs}}) // total timeout: bounds the call, connect to the body's last byte
{{- if .ConnectMs}}
                ->connectTimeout({{seconds .ConnectMs}}) // connect timeout: bounds the TCP (and TLS) handshake
{{- end}}
{{- if .SendsKey}}
                ->withHeaders(['Idempotency-Key' => $this->idempotencyKey])
{{- end}}
                ->send({{phpstr .Method}}, {{phpstr .URL}});
        } catch (ConnectionException $e) {
{{- if .RetryUnknown}}
            throw $e; // a connect failure or a timeout: the queue retries it after backoff()
{{- else}}
            // A connect failure or a timeout: a timed-out {{.Method}} may have run, and without an
            // Idempotency-Key a retry could run it twice — a person checks it (failed()).
            $this->fail($e);
            return;
{{- end}}
        }
        if ($response->successful()) {
            return;
        }
        $status = $response->status();
        $after = $response->header('Retry-After');
        if ($status === 429 && ctype_digit($after)) {
            $this->release((int) $after); // the wait the dependency asked for
            return;
        }
        if (in_array($status, [{{ints .Statuses}}], true)) {
            throw new RuntimeException("status $status"); // the queue retries it after backoff()
        }
        $this->fail(new RuntimeException("rejected: status $status")); // the same on every try: no retry
    }

    public function failed(Throwable $e): void
    {
        // Keep what failed where a person will look (left to you).
    }
}
`)

// laravelJob is the job's figures in the whole seconds Laravel reads.
type laravelJob struct {
	clientPlan
	Tries                                        int
	JobTimeoutS, RetryAfterS, GiveUpS, JitterPct int64
	TimeoutS                                     string
	BackoffS                                     string
}

func writeLaravel(in Input) (Emission, error) {
	p := newClientPlan(Laravel, "Laravel", in)
	if p.Job != nil {
		return writeLaravelJob(p)
	}
	if p.BudgetMs <= 0 {
		return Emission{}, fmt.Errorf("the recommendation has no budget for an interactive caller and no job design for a job caller")
	}
	text, err := render(laravelCommandTmpl, p)
	if err != nil {
		return Emission{}, err
	}
	set := append(laravelCallSettings(p), Setting{Knob: "retry (times)", Value: strconv.Itoa(p.Attempts), Bounds: "the attempts, the first included (Laravel's retry() counts every try)"})
	if p.Attempts > 1 {
		set = append(set, Setting{Knob: "retry (sleep closure, when callback)", Value: fmt.Sprintf("full jitter, base %s ×2, cap %s; a Retry-After within the budget", p.msWords(p.BaseMs), p.msWords(p.CapMs)), Bounds: "the wait before each retry, and what is retried"})
	}
	set = append(set, Setting{Knob: "withMiddleware (each attempt's timeout)", Value: "what is left of the " + p.msWords(p.BudgetMs) + " budget", Bounds: "the whole logical call: no attempt runs past the budget"})
	missing := append(laravelReadMissing(p),
		"Laravel keeps no deadline around a logical call: a Guzzle middleware lowers each attempt's timeout to what is left of the budget, and $when refuses a wait that does not fit it")
	if p.Attempts > 1 {
		missing = append(missing, "Laravel throws one ConnectionException for a connect failure and a timeout: the program cannot retry a connect failure alone")
	}
	return Emission{Text: text, Settings: set, Missing: missing}, nil
}

// laravelReadMissing says the read timeout Laravel cannot set, when one is recommended.
func laravelReadMissing(p clientPlan) []string {
	if p.ReadMs == 0 {
		return nil
	}
	return []string{fmt.Sprintf("Laravel's HTTP client has no read timeout (Guzzle's read_timeout is ignored under curl): the %s total bounds every silence", p.msWords(p.TimeoutMs))}
}

// laravelCallSettings are the call's own knobs, for the command and the job.
func laravelCallSettings(p clientPlan) []Setting {
	var set []Setting
	if p.ConnectMs > 0 {
		set = append(set, Setting{Knob: "connectTimeout", Value: msAsSeconds(p.ConnectMs), Bounds: "the TCP (and TLS) handshake"})
	}
	return append(set, Setting{Knob: "timeout", Value: msAsSeconds(p.TimeoutMs), Bounds: "the whole attempt, connect to the body's last byte"})
}

func writeLaravelJob(p clientPlan) (Emission, error) {
	j := p.Job
	backoff := make([]string, len(j.BackoffMs))
	for i, d := range j.BackoffMs {
		backoff[i] = strconv.FormatInt(ceilSeconds(d), 10)
	}
	data := laravelJob{
		clientPlan: p, Tries: j.Tries, JobTimeoutS: ceilSeconds(j.TimeoutMs), RetryAfterS: ceilSeconds(j.RetryAfterMs),
		GiveUpS: ceilSeconds(j.GiveUpAfterMs), JitterPct: int64(math.Round(j.JitterFactor * 100)),
		TimeoutS: msAsSeconds(p.TimeoutMs), BackoffS: strings.Join(backoff, ", "),
	}
	text, err := render(laravelJobTmpl, data)
	if err != nil {
		return Emission{}, err
	}
	set := laravelCallSettings(p)
	set = append(set,
		Setting{Knob: "$tries", Value: strconv.Itoa(j.Tries), Bounds: "the runs, the first included (read only when retryUntil() is absent)"},
		Setting{Knob: "$maxExceptions", Value: strconv.Itoa(j.Tries), Bounds: "the runs that fail with an exception (a release() after a 429 is not one)"},
		Setting{Knob: "$timeout", Value: strconv.FormatInt(data.JobTimeoutS, 10), Bounds: "one run of the job"},
		Setting{Knob: "backoff()", Value: fmt.Sprintf("[%s] + U[0, %d%%]", data.BackoffS, data.JitterPct), Bounds: "the wait before each re-run"},
		Setting{Knob: "retryUntil()", Value: fmt.Sprintf("now + %d s", data.GiveUpS), Bounds: "the whole retrying of the job"},
		Setting{Knob: "retry_after (config/queue.php, a comment)", Value: strconv.FormatInt(data.RetryAfterS, 10), Bounds: "how long the queue waits for a run before delivering the job again: above $timeout"})
	missing := append(laravelReadMissing(p), "the queue's retry_after is the connection's, not the job's: the program says it in a comment, config/queue.php sets it")
	return Emission{Text: text, Settings: set, Missing: missing}, nil
}

// ceilSeconds rounds milliseconds up to the whole seconds Laravel's job properties take.
func ceilSeconds(ms float64) int64 { return int64(math.Ceil(ms/1000 - 1e-9)) }
