package profile

import (
	"strconv"
	"strings"
)

// ErrorClasses lists the error classes in report order.
// refused_stream, goaway and stream_reset are HTTP/2's (probe's h2Class); stream_cut is a
// streaming response cut mid-way (ErrorStreamCut), listed only when counted.
var ErrorClasses = []string{"timeout", "refused", "reset", "dns", "tls", "other", "fd_limit", "refused_stream", "goaway", "stream_reset", ErrorStreamCut}

// ErrorSample is the first message of one error class, with what to do about it when the
// class has a usual cause.
type ErrorSample struct {
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// ErrorHint is what to do about an error class, "" when it depends on the target.
func ErrorHint(class string, message string) string {
	switch class {
	case "fd_limit":
		return "the probe ran out of file descriptors (too many open files): lower -c or --max-in-flight, or raise ulimit -n"
	case "tls":
		switch {
		case strings.Contains(message, "no application protocol") || strings.Contains(message, "ALPN"):
			return "the server does not speak HTTP/2 over TLS: --http auto or 1.1"
		case strings.Contains(message, "certificate is valid for") || strings.Contains(message, "doesn't contain any IP SANs"):
			return "the certificate names another host: --servername NAME checks it against the name it was issued for (or --resolve NAME:PORT:ADDR with NAME in the URL); --insecure skips verification"
		case strings.Contains(message, "unknown authority"):
			return "the certificate did not verify: --cacert FILE trusts your own CA; --insecure skips verification (for a test target you trust)"
		case strings.Contains(message, "x509") || strings.Contains(message, "certificate"):
			return "the certificate did not verify; --insecure skips verification (for a test target you trust)"
		}
	case "dns":
		return "the host name did not resolve: is the URL right?"
	case "refused":
		return "nothing listens on that port: is the URL right, is the service up?"
	case "refused_stream":
		return "the server refused the stream (REFUSED_STREAM) before its application saw it: a retry is safe whatever the method"
	case "goaway":
		if strings.Contains(message, "graceful shutdown") {
			return "the server's GOAWAY came before it processed this stream: a retry on a new connection is safe whatever the method"
		}
		return "the connection closed after the server's GOAWAY with this stream open: it may have been processed, retry only idempotent requests"
	case ErrorStreamCut:
		return "the stream ended mid-way, without its terminator: a proxy's idle or total timeout in front of the target, or the server dropping it; a retry restarts the stream from the start"
	case "stream_reset":
		return "the server reset the stream (RST_STREAM) after accepting it: it may have been processed, retry only idempotent requests"
	}
	return ""
}

// GoodStatus reports whether a status is a good response: below 400. A 4xx is the target
// refusing the request (a wrong path, missing credentials, throttling) and a 5xx is it
// failing; neither is the latency of the answer a caller waits for.
func GoodStatus(code int) bool { return code < 400 }

func goodStatusKey(code string) bool {
	n, err := strconv.Atoi(code)
	return err == nil && GoodStatus(n)
}
