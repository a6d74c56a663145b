package probe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
)

// Error classes, indexes into shard.errs in the order of ErrorClasses.
const (
	errTimeout = iota
	errRefused
	errReset
	errDNS
	errTLS
	errOther
	numErrorClasses
)

// classify maps a request error to its class (DESIGN §3: timeout, refused, reset, dns, tls,
// other). The order matters: a TLS handshake that times out is a timeout, a DNS failure is
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
