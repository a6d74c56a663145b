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
		return "no answer within " + FormatMs(ms(maxTimeout)) + " (--max-timeout)"
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
		if strings.Contains(message, "x509") || strings.Contains(message, "certificate") {
			return "the certificate did not verify; --insecure skips verification (for a test target you trust)"
		}
	case "dns":
		return "the host name did not resolve: is the URL right?"
	case "refused":
		return "nothing listens on that port: is the URL right, is the service up?"
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
