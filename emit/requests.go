package emit

import "fmt"

// requestsWriter writes the recommendation for Python requests: timeout=(connect, read) as
// urllib3.Timeout, which requests passes on as it is, with urllib3's total; requests has no
// total that bounds the body, so the program gives each attempt a deadline of its own.
var requestsWriter = writer{target: Requests, kind: KindCode, language: "python",
	write: func(in Input) (Emission, error) { return writePython(requestsLib, in) }}

// requestsLib: requests 2.28 on urllib3 1.26, measured on loopback (emit's real-client test):
// timeout=(0.3, 0.4) alone waited the whole 16 s of a body dripping a byte every 250 ms.
// urllib3.Timeout(total=) lowers the read timeout to what the connect left
// (urllib3/util/timeout.py read_timeout), so the connect and the wait for the head end within
// the attempt; the body does not. stream=True returns at the head; a timer then shuts the
// connection down at the attempt's deadline, which ends the body's read — and urllib3 1.26
// does not enforce Content-Length, so the truncated body would pass for a whole one: the
// program reads the timer's flag, not the body, to know. The socket is reached through
// response.raw.fileno() (urllib3's public HTTPResponse.fileno): response.raw.connection.sock
// is None once http.client has handed a Connection: close response its socket.
var requestsLib = pyLib{
	name:    "requests",
	stdlib:  []string{"socket", "threading"},
	imports: []string{"requests", "urllib3"},
	open:    "requests.Session()",
	connect: "the TCP connect (urllib3.Timeout connect)",
	read: "each silence of the response: the wait for its head, then every pause between two reads " +
		"of the body (urllib3.Timeout read, requests' timeout=(connect, read)); never the body as a whole",
	total: "one attempt as a whole, body included: urllib3.Timeout's total ends the connect and the " +
		"wait for the head within it, and a timer shuts the socket down at its end (requests has no total)",
	attempt:  requestsAttempt,
	settings: requestsSettings,
	missing:  requestsMissing,
}

const requestsAttempt = `def attempt(session, headers, seconds):
    """One attempt, over within seconds: (status, headers), or Failure."""
{{- if .Total}}
    end = time.monotonic() + seconds
{{- else}}
    end = None if seconds is None else time.monotonic() + seconds
{{- end}}
    expired = threading.Event()

    def expire(sock):
        expired.set()
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # the connection is gone already

    timeout = urllib3.Timeout(
        connect=within(CONNECT_TIMEOUT, seconds), read=within(READ_TIMEOUT, seconds), total=seconds
    )
    try:
        with session.request(
            METHOD, URL, headers=headers, data=BODY, timeout=timeout, stream=True
        ) as response:
            # The head is in. requests has no total: at the attempt's end a timer shuts the
            # connection down, which ends a body still coming in (the read timeout never
            # would). It shuts a duplicate of the socket (fromfd; the family does not matter
            # to shutdown), so TLS state is left alone and closing it closes nothing else.
            with socket.fromfd(response.raw.fileno(), socket.AF_INET, socket.SOCK_STREAM) as sock:
{{- if .Total}}
                timer = threading.Timer(max(0.0, end - time.monotonic()), expire, [sock])
{{- else}}
                # No total: a timer of None never fires, and is cancelled below.
                timer = threading.Timer(None if end is None else max(0.0, end - time.monotonic()), expire, [sock])
{{- end}}
                timer.start()
                try:
                    response.content  # reads the whole body
                except requests.exceptions.RequestException:
                    if not expired.is_set():
                        raise
                finally:
                    timer.cancel()
                    timer.join()
            if expired.is_set():
                raise Failure(f"total timeout: the body was not in after {seconds:.3f} s", RETRY_UNKNOWN)
            return response.status_code, response.headers
    except requests.exceptions.ConnectTimeout:
        raise Failure("connect timeout", True) from None
    except requests.exceptions.ReadTimeout:
        raise Failure("read timeout", RETRY_UNKNOWN) from None
    except requests.exceptions.ConnectionError as e:
        reason = getattr(e.args[0], "reason", None) if e.args else None
        if isinstance(reason, urllib3.exceptions.NewConnectionError):
            raise Failure(f"could not connect: {reason}", True) from None
        raise Failure(f"connection failed: {e}", RETRY_UNKNOWN) from None
    except requests.exceptions.RequestException as e:
        raise Failure(f"request failed: {e}", RETRY_UNKNOWN) from None
`

func requestsSettings(lib pyLib, p codePlan) []Setting {
	s := []Setting{}
	if p.Connect > 0 {
		s = append(s, Setting{Knob: "urllib3.Timeout(connect=)", Value: pySeconds(p.Connect), Bounds: lib.connect})
	}
	if p.Read > 0 {
		s = append(s, Setting{Knob: "urllib3.Timeout(read=)", Value: pySeconds(p.Read), Bounds: lib.read})
	}
	return append(s,
		Setting{Knob: "urllib3.Timeout(total=)", Value: pyTotal(p),
			Bounds: "the connect and the wait for the head together (urllib3 lowers the read timeout to what the connect left); not the body"},
		Setting{Knob: "TOTAL_TIMEOUT", Value: pyTotal(p), Bounds: lib.total},
	)
}

func requestsMissing(p codePlan) []string {
	m := []string{}
	if p.Total > 0 {
		m = append(m, fmt.Sprintf("a total timeout: requests' timeout=(connect, read) bounds each silence, never the whole response, "+
			"so a body dripping a byte within the read timeout never times out; the program gives each attempt its own %s deadline "+
			"(stream=True, and a timer that shuts the socket down when it passes)", ms(p.Total)))
	}
	if p.Attempts > 1 {
		m = append(m, "retries with jitter and a deadline: urllib3's Retry (HTTPAdapter(max_retries=...)) knows no deadline, "+
			"has no jitter in urllib3 1.26 and waits out any Retry-After it is sent; the program retries in its own loop"+budgetClause(p))
	}
	if p.Job != nil {
		m = append(m, p.queueMissing("requests"))
	}
	return m
}

// budgetClause names the budget the loop keeps ("" for a job).
func budgetClause(p codePlan) string {
	if p.Budget <= 0 {
		return ""
	}
	return ", within the " + ms(p.Budget) + " budget"
}
