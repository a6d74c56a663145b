package probe

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"testing"
)

// TestTLSMessage: a TLS failure says what failed, from the x509 error's type, without
// crypto/tls's "tls: " prefix (the report prints the class before it).
func TestTLSMessage(t *testing.T) {
	wrap := func(err error) error {
		return &url.Error{Op: "Get", URL: "https://api.test/", Err: &tls.CertificateVerificationError{Err: err}}
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"unknown authority", wrap(x509.UnknownAuthorityError{}), "certificate not trusted: certificate signed by unknown authority"},
		{"name mismatch", wrap(x509.HostnameError{Certificate: &x509.Certificate{DNSNames: []string{"api.test"}}, Host: "other.test"}), "certificate name mismatch: certificate is valid for api.test, not other.test"},
		{"expired", wrap(x509.CertificateInvalidError{Reason: x509.Expired, Detail: "current time 2026-12-07 is after 2026-01-01"}), "certificate expired or not yet valid: certificate has expired or is not yet valid: current time 2026-12-07 is after 2026-01-01"},
		{"other invalid", wrap(x509.CertificateInvalidError{Reason: x509.NotAuthorizedToSign}), "certificate not valid: certificate is not authorized to sign other certificates"},
		{"no tls: tls:", &url.Error{Op: "Get", URL: "https://api.test/", Err: fmt.Errorf("tls: handshake failure")}, "handshake failure"},
		{"alert", errors.New("remote error: tls: bad certificate"), "remote error: tls: bad certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errorMessage(tt.err, errTLS, 0); got != tt.want {
				t.Errorf("errorMessage = %q, want %q", got, tt.want)
			}
		})
	}
}
