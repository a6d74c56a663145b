package emit

import "fmt"

// httpxWriter writes the recommendation for HTTPX: httpx.Timeout(connect, read, write, pool)
// per attempt; httpx has no total, so the program gives each attempt a deadline of its own.
var httpxWriter = writer{target: HTTPX, kind: KindCode, language: "python",
	write: func(in Input) (Emission, error) { return writePython(httpxLib, in) }}

// httpxLib: httpx 0.23 on httpcore 0.16, measured on loopback (emit's real-client test):
// Timeout(connect=0.3, read=0.4) alone waited the whole 16 s of a body dripping a byte every
// 250 ms — read bounds each socket read, never the response. A timer started with the attempt
// shuts the connection down at its end; httpcore hands the socket over through its documented
// extensions: the trace callback's connection.connect_tcp.complete (a new connection, so the
// wait for the head is bounded too) and the response's network_stream (a kept-alive one). The
// program holds a duplicate of the descriptor: TLS takes the TCP socket object over (it is
// detached, and shutting it down then does nothing: measured, 1.13 s of an 0.8 s total
// against a server slow to handshake), and an SSLSocket shut down from another thread drops
// its TLS state under the reader.
// HTTPTransport(retries=n) retries failed connects only, at 0, 0.5, 1, 2 s… with no jitter
// and no deadline (httpcore/_sync/connection.py): the program retries in its own loop.
var httpxLib = pyLib{
	name:    "httpx",
	stdlib:  []string{"socket", "threading"},
	imports: []string{"httpx"},
	open:    "httpx.Client()",
	connect: "the TCP connect (httpx.Timeout connect)",
	read: "each silence of the response: every socket read, the wait for the head and each pause " +
		"in the body (httpx.Timeout read); never the body as a whole",
	total: "one attempt as a whole, body included: a timer shuts the socket down at its end (httpx has " +
		"no total); the write and pool timeouts get what the attempt has left",
	attempt:  httpxAttempt,
	settings: httpxSettings,
	missing:  httpxMissing,
}

const httpxAttempt = `def attempt(client, headers, seconds):
    """One attempt, over within seconds: (status, headers), or Failure."""
    expired = threading.Event()
    sockets = []

    def shut(sock):
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # the connection is gone already

    def expire():
        expired.set()
        for sock in list(sockets):
            shut(sock)

    def hold(stream):
        # A duplicate of the attempt's socket (fromfd; the family does not matter to
        # shutdown), for expire() to shut down: TLS state is left alone, and closing it
        # closes nothing else. One met after the end is shut down at once.
        sock = stream.get_extra_info("socket")
        sockets.append(socket.fromfd(sock.fileno(), socket.AF_INET, socket.SOCK_STREAM))
        if expired.is_set():
            shut(sockets[-1])

    def trace(event, info):
        # httpcore's trace extension: the connection as soon as it is made.
        if event == "connection.connect_tcp.complete":
            hold(info["return_value"])

    timeout = httpx.Timeout(
        connect=within(CONNECT_TIMEOUT, seconds),
        read=within(READ_TIMEOUT, seconds),
        write=seconds,
        pool=seconds,
    )
    # httpx has no total: at the attempt's end the timer shuts the connection down, which
    # ends the wait for the head or a body still coming in (the read timeout never would).
{{- if not .Total}}
    # No total (seconds None): a timer of None never fires, and is cancelled below.
{{- end}}
    timer = threading.Timer(seconds, expire)
    timer.start()
    try:
        with client.stream(
            METHOD, URL, headers=headers, content=BODY, timeout=timeout,
            extensions={"trace": trace},
        ) as response:
            hold(response.extensions["network_stream"])  # a kept-alive connection has no trace
            response.read()
        return response.status_code, response.headers
    except httpx.ConnectTimeout:
        raise Failure("connect timeout", True) from None
    except httpx.ConnectError as e:
        raise Failure(f"could not connect: {e}", True) from None
    except httpx.HTTPError as e:
        if expired.is_set():
            raise Failure(f"total timeout: the response was not in after {seconds:.3f} s", RETRY_UNKNOWN) from None
        raise Failure(f"{type(e).__name__}: {e}", RETRY_UNKNOWN) from None
    finally:
        timer.cancel()
        timer.join()
        for sock in sockets:
            sock.close()
`

func httpxSettings(lib pyLib, p codePlan) []Setting {
	s := []Setting{}
	if p.Connect > 0 {
		s = append(s, Setting{Knob: "httpx.Timeout(connect=)", Value: pySeconds(p.Connect), Bounds: lib.connect})
	}
	if p.Read > 0 {
		s = append(s, Setting{Knob: "httpx.Timeout(read=)", Value: pySeconds(p.Read), Bounds: lib.read})
	}
	return append(s,
		Setting{Knob: "httpx.Timeout(write=)", Value: "seconds (what the attempt has left)", Bounds: "each write of the request"},
		Setting{Knob: "httpx.Timeout(pool=)", Value: "seconds (what the attempt has left)", Bounds: "the wait for a connection from the client's pool"},
		Setting{Knob: "TOTAL_TIMEOUT", Value: pyTotal(p), Bounds: lib.total},
	)
}

func httpxMissing(p codePlan) []string {
	m := []string{}
	if p.Total > 0 {
		m = append(m, fmt.Sprintf("a total timeout: httpx.Timeout's connect, read, write and pool each bound one step, never the whole "+
			"response, so a body dripping a byte within the read timeout never times out; the program gives each attempt its own %s deadline "+
			"(a timer that shuts the socket down when it passes)", ms(p.Total)))
	}
	if p.Attempts > 1 {
		m = append(m, "retries with backoff and a deadline: httpx.HTTPTransport(retries=n) retries failed connects only, "+
			"with no jitter and no deadline; the program retries in its own loop"+budgetClause(p))
	}
	if p.Job != nil {
		m = append(m, p.queueMissing("httpx"))
	}
	return m
}
