package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"testing"

	"github.com/patience-dev/patience/profile"
)

func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://api.example.com/v1?q=1&api_key=s3cret&Token=abc", "https://api.example.com/v1?q=1&api_key=REDACTED&Token=REDACTED"},
		{"https://user:pw@example.com/", "https://REDACTED:REDACTED@example.com/"},
		{"http://127.0.0.1:8080/path", "http://127.0.0.1:8080/path"},
		{"http://h/?access%5Ftoken=x&keep=1", "http://h/?access%5Ftoken=REDACTED&keep=1"},
		{"http://h/?monkey", "http://h/?monkey"},
	} {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactHeader(t *testing.T) {
	for _, tc := range []struct{ name, value, want string }{
		{"Authorization", "Bearer x", "Authorization: REDACTED"},
		{"proxy-authorization", "Basic y", "proxy-authorization: REDACTED"},
		{"Cookie", "a=b", "Cookie: REDACTED"},
		{"X-Api-Key", "k", "X-Api-Key: REDACTED"},
		{"X-Auth-Token", "t", "X-Auth-Token: REDACTED"},
		{"Accept", "text/plain", "Accept: text/plain"},
	} {
		if got := RedactHeader(tc.name, tc.value); got != tc.want {
			t.Errorf("RedactHeader(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	// A closed loopback port: listen, note the address, close.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, refused := net.Dial("tcp", addr)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"refused", refused, "refused"},
		{"deadline", fmt.Errorf("get: %w", context.DeadlineExceeded), "timeout"},
		{"os deadline", os.ErrDeadlineExceeded, "timeout"},
		{"dns", &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}}, "dns"},
		{"eof", fmt.Errorf("read: %w", io.EOF), "reset"},
		{"tls", errors.New("tls: first record does not look like a TLS handshake"), "tls"},
		{"other", errors.New("something else"), "other"},
	} {
		if refused == nil && tc.name == "refused" {
			t.Fatal("dialing a closed port succeeded")
		}
		if got := profile.ErrorClasses[classify(tc.err)]; got != tc.want {
			t.Errorf("%s: classify(%v) = %s, want %s", tc.name, tc.err, got, tc.want)
		}
	}
}
