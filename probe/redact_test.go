package probe

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// TestRedactURLCases: one row per way a secret rides in a URL (issue 17 item 6).
func TestRedactURLCases(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"user and password", "https://alice:s3cret@api.example.com/v1", "https://REDACTED:REDACTED@api.example.com/v1"},
		{"token-only userinfo", "https://ghp_abcdefghijklmnop@github.com/x", "https://REDACTED@github.com/x"},
		{"token with empty password", "https://sk_live_123:@api.stripe.com/", "https://REDACTED:REDACTED@api.stripe.com/"},
		{"password holding @ # ?", "http://u:p@s#s?w@host:8080/p", "http://REDACTED:REDACTED@host:8080/p"},
		{"no scheme", "alice:pw@host/p", "REDACTED:REDACTED@host/p"},
		{"fragment", "https://app.example.com/cb#access_token=abc&token_type=bearer", "https://app.example.com/cb#REDACTED"},
		{"empty fragment", "https://h/#", "https://h/#"},
		{"query password", "https://h/?user=bob&password=pw", "https://h/?user=bob&password=REDACTED"},
		{"query passwd", "https://h/?passwd=pw", "https://h/?passwd=REDACTED"},
		{"query secret", "https://h/?client_secret=x", "https://h/?client_secret=REDACTED"},
		{"query sig", "https://acct.blob.core.windows.net/c/b?sv=2020&sig=abc%2F", "https://acct.blob.core.windows.net/c/b?sv=2020&sig=REDACTED"},
		{"query signature", "https://h/?Signature=abc&Expires=1", "https://h/?Signature=REDACTED&Expires=1"},
		{"query auth", "https://h/?auth=abc", "https://h/?auth=REDACTED"},
		{"query session", "https://h/?sessionid=abc", "https://h/?sessionid=REDACTED"},
		{"query credential", "https://h/?credentials=abc", "https://h/?credentials=REDACTED"},
		{"query key", "https://h/?api_key=abc&q=1", "https://h/?api_key=REDACTED&q=1"},
		{"query token", "https://h/?Token=abc", "https://h/?Token=REDACTED"},
		{"query escaped name", "http://h/?access%5Ftoken=x&keep=1", "http://h/?access%5Ftoken=REDACTED&keep=1"},
		{"aws presigned", "https://b.s3.amazonaws.com/o?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F2026&X-Amz-Date=20260101T000000Z&X-Amz-Expires=60&X-Amz-SignedHeaders=host&X-Amz-Signature=deadbeef&x-id=GetObject",
			"https://b.s3.amazonaws.com/o?X-Amz-Algorithm=REDACTED&X-Amz-Credential=REDACTED&X-Amz-Date=REDACTED&X-Amz-Expires=REDACTED&X-Amz-SignedHeaders=REDACTED&X-Amz-Signature=REDACTED&x-id=GetObject"},
		{"aws security token", "https://h/?X-Amz-Security-Token=abc", "https://h/?X-Amz-Security-Token=REDACTED"},
		{"gcs", "https://storage.googleapis.com/b/o?X-Goog-Credential=a&X-Goog-Signature=b", "https://storage.googleapis.com/b/o?X-Goog-Credential=REDACTED&X-Goog-Signature=REDACTED"},
		{"name without value", "http://h/?monkey", "http://h/?monkey"},
		{"nothing secret", "http://127.0.0.1:8080/path?q=1", "http://127.0.0.1:8080/path?q=1"},
		{"@ in path only", "http://h/users/@me", "http://h/users/@me"},
		{"unparsable with password", "http://user:pa ss@[::1:bad/", "http://REDACTED:REDACTED@[::1:bad/"},
		{"unparsable port", "http://alice:s3cret@host:port/", "http://REDACTED:REDACTED@host:port/"},
	} {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("%s: RedactURL(%q)\n got %q\nwant %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestRedactHeaderCases: one row per header name a secret rides in.
func TestRedactHeaderCases(t *testing.T) {
	for _, tc := range []struct {
		name   string
		secret bool
	}{
		{"Authorization", true}, {"Proxy-Authorization", true}, {"Cookie", true}, {"Set-Cookie", true},
		{"X-Api-Key", true}, {"X-Auth-Token", true}, {"X-Secret", true}, {"X-Auth", true},
		{"X-Client-Password", true}, {"X-Passwd", true}, {"X-Hub-Signature-256", true}, {"X-Sig", true},
		{"X-Amz-Date", true}, {"X-Amz-Security-Token", true}, {"X-Credential", true}, {"X-Session-Id", true},
		{"Accept", false}, {"Content-Type", false}, {"User-Agent", false}, {"Idempotency-Key", true},
	} {
		got := RedactHeader(tc.name, "v4lue")
		if hidden := got == tc.name+": "+Redacted; hidden != tc.secret {
			t.Errorf("RedactHeader(%q) = %q, want secret=%v", tc.name, got, tc.secret)
		}
	}
}

// TestRedactError: the password in the message of a URL that fails to parse, and in the
// *url.Error net/http wraps around a failed request, is redacted; errors.Is still works.
func TestRedactError(t *testing.T) {
	raw := "http://alice:s3cret@host:port/?token=t0k"
	//lint:ignore SA1007 deliberately unparseable: the parse error quotes the password, which must be redacted
	_, perr := url.Parse(raw)
	if perr == nil {
		t.Fatal("parsed")
	}
	for _, err := range []error{
		perr,
		fmt.Errorf("probe: %w", &url.Error{Op: "Get", URL: raw, Err: errors.New("dial tcp: refused")}),
		fmt.Errorf("target %s is bad", raw),
	} {
		got := RedactError(err, raw)
		if s := got.Error(); strings.Contains(s, "s3cret") || strings.Contains(s, "alice") || strings.Contains(s, "t0k") || !strings.Contains(s, Redacted) {
			t.Errorf("RedactError(%q) = %q", err, s)
		}
		if !errors.Is(got, err) {
			t.Errorf("RedactError(%q) lost the chain", err)
		}
	}
	if RedactError(nil, raw) != nil {
		t.Error("nil error")
	}
}
