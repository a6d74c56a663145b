package probe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/patience-dev/patience/internal/units"
)

// Error classes, indexes into shard.errs in the order of ErrorClasses.
const (
	errTimeout = iota
	errRefused
	errReset
	errDNS
	errTLS
	errOther
	errFDLimit
	errRefusedStream // HTTP/2 REFUSED_STREAM (h2.go)
	errGoAway        // HTTP/2 stream aborted by the server's GOAWAY
	errStreamReset   // HTTP/2 RST_STREAM of any other code
	numErrorClasses
)

// classify maps a request error to its class (DESIGN §3: timeout, refused, reset, dns, tls,
// other, and fd_limit: the probe ran out of file descriptors, which says nothing about the
// target). The order matters: a TLS handshake that times out is a timeout, a DNS failure is
// wrapped in a *net.OpError by the dialer.
func classify(err error) int {
	var dnsErr *net.DNSError
	var recErr tls.RecordHeaderError
	var alert tls.AlertError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return errFDLimit
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return errTimeout
	case errors.As(err, &netErr) && netErr.Timeout():
		return errTimeout
	case h2Class(err) >= 0:
		return h2Class(err)
	case errors.As(err, &dnsErr):
		return errDNS
	case errors.Is(err, syscall.ECONNREFUSED):
		return errRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errReset
	case errors.As(err, &recErr), errors.As(err, &alert), errors.As(err, &certErr),
		errors.As(err, &unknownAuth), errors.As(err, &hostErr), errors.As(err, &invalid):
		return errTLS
	case strings.Contains(err.Error(), "tls:"):
		return errTLS
	}
	return errOther
}

// ErrorSample is the first message of one error class, with what to do about it when the
// class has a usual cause.
type ErrorSample struct {
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// errorMessage is the message an error sample shows: the innermost useful text, without the
// request URL net/http wraps around it (it may hold a secret the report redacts elsewhere),
// and the probe's own bound said as such.
func errorMessage(err error, class int, maxTimeout time.Duration) string {
	if class == errTimeout && errors.Is(err, context.DeadlineExceeded) {
		return "no answer within " + units.Millis(ms(maxTimeout)) + " (--max-timeout)"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// errorHint is what to do about an error class, "" when it depends on the target.
func errorHint(class string, message string) string {
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
