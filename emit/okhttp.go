package emit

// okhttpWriter writes the recommendation for OkHttp (3.12+, where callTimeout came; 4.x keeps
// the same builder): a single-file Java program, runnable as `java -cp okhttp.jar:okio.jar
// PatienceCall.java` (Java 11+).
//
// Measured with Debian's OkHttp 3.13.1 on Java 17 on loopback (emit/java_realclient_test.go):
// readTimeout bounds each silence, not a dripping body; callTimeout is a real total, body
// included. retryOnConnectionFailure (on by default) lets OkHttp retry a failed connect on
// another route or a stale pooled connection inside one call, unseen: the program turns it
// off, so its own loop is the one retry layer and counts every attempt.
var okhttpWriter = writer{target: OkHttp, kind: KindCode, language: "java", write: writeOkHttp}

var okhttpTmpl = codeTemplate("okhttp", `{{comment .Header}}
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

public class PatienceCall {
    // The recommendation's figures, in milliseconds.
    static final String URL = {{str .URL}};
    static final String METHOD = {{str .Method}};
{{- if .ConnectMs}}
    static final long CONNECT_MS = {{.ConnectMs}};
{{- end}}
{{- if .ReadMs}}
    static final long READ_MS = {{.ReadMs}};
{{- end}}
    static final long TIMEOUT_MS = {{.TimeoutMs}};
    static final int ATTEMPTS = {{.Attempts}};
{{- if .BudgetMs}}
    static final long BUDGET_MS = {{.BudgetMs}};
{{- else}}
    static final long BUDGET_MS = Long.MAX_VALUE; // a job: no deadline around the call, the queue's job timeout bounds the run
{{- end}}
    static final long BACKOFF_BASE_MS = {{.BaseMs}};
    static final long BACKOFF_CAP_MS = {{.CapMs}};
    static final boolean RETRY_UNKNOWN = {{.RetryUnknown}}; // whether a timeout or a reset, whose outcome is unknown, is retried
    static final List<Integer> RETRIED_STATUSES = List.of({{ints .Statuses}});

    /** What one attempt's outcome means. */
    record Verdict(boolean ok, boolean retry, String why, long afterMs, int status) {
        static Verdict retried(boolean retry, String why) {
            return new Verdict(false, retry, why, 0, 0);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        System.exit(run());
    }

    /** Runs the attempts: each within the total timeout and what is left of the budget. */
    static int run() throws InterruptedException {
        OkHttpClient client = new OkHttpClient.Builder()
{{- if .ConnectMs}}
                .connectTimeout(Duration.ofMillis(CONNECT_MS)) // connect timeout: bounds the TCP (and TLS) handshake
{{- end}}
{{- if .ReadMs}}
                .readTimeout(Duration.ofMillis(READ_MS)) // read timeout: bounds each silence — the wait for the head and every pause in the body
{{- else}}
                .readTimeout(Duration.ZERO) // no read timeout recommended: 0 turns off OkHttp's 10 s default, the call timeout bounds every silence
{{- end}}
                .callTimeout(Duration.ofMillis(TIMEOUT_MS)) // total timeout: bounds the whole attempt, connect to the body's last byte
                .retryOnConnectionFailure(false) // no retry inside a call: the loop below is the one retry layer
                .build();
        long start = System.nanoTime();
{{- if .SendsKey}}
        String key = UUID.randomUUID().toString();
{{- end}}
        for (int n = 1; ; n++) {
            long limitMs = Math.min(TIMEOUT_MS, left(start));
            if (limitMs <= 0) {
                return fail("the budget ran out before attempt " + n);
            }
            OkHttpClient bounded = limitMs < TIMEOUT_MS ? client.newBuilder().callTimeout(Duration.ofMillis(limitMs)).build() : client;
            Verdict v = attempt(bounded, limitMs{{if .SendsKey}}, key{{end}});
            if (v.ok()) {
                System.out.println(v.status());
                return 0;
            }
            if (!v.retry()) {
                return fail("attempt " + n + ": " + v.why());
            }
            if (n >= ATTEMPTS) {
                return fail("attempt " + n + ": " + v.why() + "; " + ATTEMPTS + " attempt(s) made");
            }
            long waitMs = Math.max(fullJitterMs(n), v.afterMs());
            if (waitMs >= left(start)) {
                return fail("attempt " + n + ": " + v.why() + "; a " + waitMs + " ms wait does not fit the " + left(start) + " ms left of the budget");
            }
            Thread.sleep(waitMs);
        }
    }

    /**
     * One call, its body read under the same timeouts. The program waits for it no longer than
     * limitMs itself: OkHttp 3.13's callTimeout cancels the call, and a cancel that lands
     * before the connection exists can be lost (measured: a 2 ms callTimeout let a dripping
     * body run 16 s), so the wait is bounded here too.
     */
    static Verdict attempt(OkHttpClient client, long limitMs{{if .SendsKey}}, String key{{end}}) throws InterruptedException {
        boolean hasBody = List.of("POST", "PUT", "PATCH").contains(METHOD);
        Request request = new Request.Builder()
                .url(URL)
                .method(METHOD, hasBody ? RequestBody.create(null, new byte[0]) : null)
{{- if .SendsKey}}
                .header("Idempotency-Key", key)
{{- end}}
                .build();
        Call call = client.newCall(request);
        CompletableFuture<Verdict> verdict = new CompletableFuture<>();
        call.enqueue(new Callback() {
            @Override
            public void onFailure(Call c, IOException e) {
                verdict.complete(judgeError(c, e));
            }

            @Override
            public void onResponse(Call c, Response res) {
                try (res) {
                    res.body().bytes();
                    verdict.complete(judgeStatus(res.code(), res.header("Retry-After")));
                } catch (IOException e) {
                    verdict.complete(judgeError(c, e));
                }
            }
        });
        try {
            return verdict.get(limitMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            call.cancel();
            return Verdict.retried(RETRY_UNKNOWN, "timed out after " + limitMs + " ms (the attempt's total)");
        } catch (ExecutionException e) {
            return Verdict.retried(RETRY_UNKNOWN, e.getCause().toString());
        }
    }

    /** What a response means: done on a 2xx; retried on a retried status or a 429 with a Retry-After. */
    static Verdict judgeStatus(int status, String retryAfter) {
        if (status >= 200 && status < 300) {
            return new Verdict(true, false, "", 0, status);
        }
        Long after = retryAfterMs(retryAfter);
        boolean retry = RETRIED_STATUSES.contains(status) || (status == 429 && after != null);
        return new Verdict(false, retry, "status " + status, after == null ? 0 : after, status);
    }

    /** What a failed call means: a connect failure is retried; a timeout or a reset only when safe. */
    static Verdict judgeError(Call call, IOException e) {
        if (e instanceof ConnectException || e instanceof NoRouteToHostException || e instanceof UnknownHostException
                || (e instanceof SocketTimeoutException && String.valueOf(e.getMessage()).contains("connect"))) {
            return Verdict.retried(true, "connect failed: " + e);
        }
        if (e instanceof SocketTimeoutException) {
            return Verdict.retried(RETRY_UNKNOWN, "read timed out: " + e);
        }
        // callTimeout cancels the call: what is thrown then depends on where it was.
        boolean total = call.isCanceled() || e instanceof InterruptedIOException;
        return Verdict.retried(RETRY_UNKNOWN, (total ? "timed out (the attempt's total): " : "") + e);
    }

    /** Milliseconds left of the budget. */
    static long left(long start) {
        if (BUDGET_MS == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return BUDGET_MS - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /** The wait before attempt n + 1: uniform in [0, min(cap, base·2^(n-1))]. */
    static long fullJitterMs(int n) {
        long bound = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS << Math.min(n - 1, 30));
        return ThreadLocalRandom.current().nextLong(bound + 1);
    }

    /** The wait a Retry-After asks for (seconds or an HTTP date), in ms; null when absent or unreadable. */
    static Long retryAfterMs(String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        if (value.chars().allMatch(Character::isDigit)) {
            return Long.parseLong(value) * 1000;
        }
        try {
            ZonedDateTime at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME);
            return Math.max(0, at.toInstant().toEpochMilli() - System.currentTimeMillis());
        } catch (RuntimeException e) {
            return null;
        }
    }

    static int fail(String why) {
        System.err.println("gave up: " + why);
        return 1;
    }
}
`)

func writeOkHttp(in Input) (Emission, error) {
	p := newClientPlan(OkHttp, "OkHttp", in)
	text, err := render(okhttpTmpl, p)
	if err != nil {
		return Emission{}, err
	}
	var set []Setting
	if p.ConnectMs > 0 {
		set = append(set, Setting{Knob: "connectTimeout", Value: p.msWords(p.ConnectMs), Bounds: "the TCP (and TLS) handshake"})
	}
	if p.ReadMs > 0 {
		set = append(set, Setting{Knob: "readTimeout", Value: p.msWords(p.ReadMs), Bounds: "each silence: the wait for the response head and every pause in the body"})
	} else {
		set = append(set, Setting{Knob: "readTimeout", Value: "0 (none)", Bounds: "nothing: it turns off OkHttp's 10 s default, the call timeout bounds every silence"})
	}
	set = append(set,
		Setting{Knob: "callTimeout", Value: p.perAttempt(p.msWords(p.TimeoutMs)), Bounds: "the whole attempt, connect to the body's last byte"},
		Setting{Knob: "retryOnConnectionFailure", Value: "false", Bounds: "OkHttp's own retries inside a call (other routes, stale pooled connections): none, the program's loop is the one retry layer"})
	set = append(set, loopSettings(p, "ATTEMPTS (the retry loop)", "BUDGET_MS (the loop's deadline)", "fullJitterMs", "retryAfterMs")...)
	var missing []string
	if p.Attempts > 1 {
		missing = append(missing, "OkHttp has no retry policy (backoff, statuses, Retry-After) and no deadline around a logical call: the program writes the loop, the backoff and the budget itself")
	}
	return Emission{Text: text, Settings: set, Missing: append(missing, jobMissing(p)...)}, nil
}
