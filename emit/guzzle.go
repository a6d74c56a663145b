package emit

import "fmt"

// guzzleWriter writes the recommendation for Guzzle 7 on its curl handler: a program that
// requires composer's vendor/autoload.php.
//
// Measured with Debian's Guzzle 7.4.5 and php-curl on loopback (emit/php_realclient_test.go):
// `timeout` is curl's CURLOPT_TIMEOUT_MS, a real total (a dripping body is cut at it);
// `read_timeout` changes nothing under curl (a 1 s wait for the head and 600 ms pauses in the
// body both pass a 400 ms read_timeout): the StreamHandler alone reads it, and only with
// `stream` set. Every curl failure, a total timeout included, is a ConnectException; the
// handler context's pretransfer_time tells whether the request was sent.
var guzzleWriter = writer{target: Guzzle, kind: KindCode, language: "php", write: writeGuzzle}

var guzzleTmpl = phpTemplate("guzzle", `<?php

{{comment .Header}}
declare(strict_types=1);

require __DIR__ . '/vendor/autoload.php';

use GuzzleHttp\Client;
use GuzzleHttp\Exception\TransferException;
use GuzzleHttp\HandlerStack;
use GuzzleHttp\Middleware;
use Psr\Http\Message\RequestInterface;
use Psr\Http\Message\ResponseInterface;

// The recommendation's figures.
const URL_TO_CALL = {{phpstr .URL}};
const METHOD = {{phpstr .Method}};
{{- if .ConnectMs}}
const CONNECT_S = {{seconds .ConnectMs}};
{{- end}}
const TIMEOUT_S = {{seconds .TimeoutMs}};
const ATTEMPTS = {{.Attempts}};
{{- if .BudgetMs}}
const BUDGET_S = {{seconds .BudgetMs}};
{{- else}}
const BUDGET_S = INF; // a job: no deadline around the call, the queue's job timeout bounds the run
{{- end}}
const BACKOFF_BASE_MS = {{.BaseMs}};
const BACKOFF_CAP_MS = {{.CapMs}};
const RETRY_UNKNOWN = {{.RetryUnknown}}; // whether a timeout or a reset, whose outcome is unknown, is retried
const RETRIED_STATUSES = [{{ints .Statuses}}];

{{template "phpHelpers" .}}

/**
 * What one attempt's outcome means: [retried?, why, the wait a Retry-After asks for in ms].
 * A 2xx is not retried; a curl error before the request was sent is a connect failure.
 */
function judge(?ResponseInterface $response, ?Throwable $error): array
{
    if ($response !== null) {
        $status = $response->getStatusCode();
        $after = retryAfterMs($response->getHeaderLine('Retry-After'));
        $retried = in_array($status, RETRIED_STATUSES, true) || ($status === 429 && $after !== null);
        return [$retried, "status $status", $after ?? 0];
    }
    $context = method_exists($error, 'getHandlerContext') ? $error->getHandlerContext() : [];
    if (isset($context['errno']) && ($context['pretransfer_time'] ?? 0) == 0) {
        return [true, 'connect failed: ' . $error->getMessage(), 0];
    }
    return [RETRY_UNKNOWN, $error->getMessage(), 0];
}

$start = hrtime(true);
$left = fn (): float => BUDGET_S - (hrtime(true) - $start) / 1e9; // seconds left of the budget
$why = 'no attempt made';
$waitMs = 0;

// The decider: retry what judge() retries while attempts are left and the wait fits the budget.
$decider = function (int $retries, RequestInterface $request, ?ResponseInterface $response, ?Throwable $error) use (&$why, &$waitMs, $left): bool {
    $n = $retries + 1;
    if ($response !== null && $response->getStatusCode() >= 200 && $response->getStatusCode() < 300) {
        return false;
    }
    [$retried, $what, $afterMs] = judge($response, $error);
    $why = "attempt $n: $what";
    if (!$retried) {
        return false;
    }
    if ($n >= ATTEMPTS) {
        $why .= '; ' . ATTEMPTS . ' attempt(s) made';
        return false;
    }
    $waitMs = max(fullJitterMs($n), $afterMs);
    if ($waitMs / 1000 >= $left()) {
        $why .= sprintf('; a %d ms wait does not fit the %d ms left of the budget', $waitMs, $left() * 1000);
        return false;
    }
    return true;
};

// Each attempt's total, lowered to what is left of the budget once the wait before it is taken off.
$withinBudget = fn (callable $handler): callable => function (RequestInterface $request, array $options) use ($handler, $left) {
    $options['timeout'] = max(0.001, min(TIMEOUT_S, $left() - ($options['delay'] ?? 0) / 1000));
    return $handler($request, $options);
};

$stack = HandlerStack::create();
$stack->push(Middleware::retry($decider, function () use (&$waitMs): int {
    return $waitMs;
}));
$stack->push($withinBudget);
$client = new Client(['handler' => $stack]);

try {
    $response = $client->request(METHOD, URL_TO_CALL, [
{{- if .ConnectMs}}
        'connect_timeout' => CONNECT_S, // connect timeout: bounds the TCP (and TLS) handshake
{{- end}}
        'timeout' => TIMEOUT_S, // total timeout: bounds the whole attempt, connect to the body's last byte (curl's CURLOPT_TIMEOUT_MS)
        'http_errors' => false, // every status resolves: the decider judges it
{{- if .SendsKey}}
        'headers' => ['Idempotency-Key' => bin2hex(random_bytes(16))],
{{- end}}
    ]);
} catch (TransferException $e) {
    fwrite(STDERR, "gave up: $why\n");
    exit(1);
}
$status = $response->getStatusCode();
if ($status >= 200 && $status < 300) {
    echo $status, "\n";
    exit(0);
}
fwrite(STDERR, "gave up: $why\n");
exit(1);
`)

func writeGuzzle(in Input) (Emission, error) {
	p := newClientPlan(Guzzle, "Guzzle", in)
	text, err := render(guzzleTmpl, p)
	if err != nil {
		return Emission{}, err
	}
	var set []Setting
	if p.ConnectMs > 0 {
		set = append(set, Setting{Knob: "connect_timeout", Value: msAsSeconds(p.ConnectMs) + " s", Bounds: "the TCP (and TLS) handshake"})
	}
	set = append(set, Setting{Knob: "timeout", Value: p.perAttempt(msAsSeconds(p.TimeoutMs) + " s"), Bounds: "the whole attempt, connect to the body's last byte (curl's CURLOPT_TIMEOUT_MS)"})
	set = append(set, loopSettings(p, "Middleware::retry (the decider's ATTEMPTS)", "BUDGET_S (the decider's and the middleware's deadline)", "Middleware::retry (the delay: fullJitterMs)", "retryAfterMs")...)
	var missing []string
	if p.ReadMs > 0 {
		missing = append(missing, fmt.Sprintf("Guzzle under curl has no read timeout: read_timeout is read by the StreamHandler alone (measured: ignored under curl), and curl's low-speed limit counts whole seconds; the %s total bounds every silence", p.msWords(p.TimeoutMs)))
	}
	if p.Attempts > 1 {
		missing = append(missing, "Guzzle keeps no deadline around a logical call: the decider refuses a wait that does not fit the budget, and a middleware lowers each attempt's timeout to what is left")
	}
	return Emission{Text: text, Settings: set, Missing: append(missing, jobMissing(p)...)}, nil
}
