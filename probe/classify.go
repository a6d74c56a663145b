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
	"strings"
	"syscall"
	"time"

	"github.com/patience-dev/patience/internal/units"
)

// Error classes, indexes into shard.errs in the order of profile.ErrorClasses.
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
	errStreamCut     // a streaming response cut mid-way (stream.go)
	numErrorClasses
)

// classify maps a request error to its class (docs/design.md §3: timeout, refused, reset, dns, tls,
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

// errorMessage is the message an error sample shows: the innermost useful text, without the
// request URL net/http wraps around it (it may hold a secret the report redacts elsewhere),
// and the probe's own bound said as such.
func errorMessage(err error, class int, maxTimeout time.Duration) string {
	if class == errTimeout && errors.Is(err, context.DeadlineExceeded) {
		return "no answer within " + units.Millis(ms(maxTimeout)) + " (--max-timeout)"
	}
	if class == errTLS {
		return tlsMessage(err)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// tlsMessage says what failed in a TLS handshake, from the x509 error's type where there is
// one: the certificate not trusted, issued for another name, or expired. The report prints it
// after the class ("tls: certificate not trusted: …"), so crypto/tls's own "tls: " prefix is
// dropped rather than doubled.
func tlsMessage(err error) string {
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(err, &unknownAuth):
		return "certificate not trusted: " + strings.TrimPrefix(unknownAuth.Error(), "x509: ")
	case errors.As(err, &hostErr):
		return "certificate name mismatch: " + strings.TrimPrefix(hostErr.Error(), "x509: ")
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "certificate expired or not yet valid: " + strings.TrimPrefix(invalid.Error(), "x509: ")
	case errors.As(err, &invalid):
		return "certificate not valid: " + strings.TrimPrefix(invalid.Error(), "x509: ")
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return strings.TrimPrefix(err.Error(), "tls: ")
}
