package probe

import (
	"errors"
	"net/url"
	"strings"
)

// Redacted replaces a secret in reports and JSON.
const Redacted = "REDACTED"

// The redaction rule (issue 24 item 10: X-Jwt, X-Bearer, X-Pass, X-Otp, pwd, pass, jwt,
// code, otp, hmac and CloudFront's Policy were shown in clear). A header or query parameter
// is secret when its name, compared case-insensitively,
//
//   - is one of secretExact: the credential headers of RFC 9110 §11.6 and RFC 6265, and
//     names that are secrets only as a whole name (CloudFront's Policy);
//   - starts with one of secretPrefixes: every parameter of an AWS SigV4 or GCS V4
//     pre-signed URL (its date, expiry and signed headers narrow down the signature);
//   - contains one of secretFragments anywhere ("key" in api_key, X-Api-Key, Idempotency-Key;
//     "sessid" in PHPSESSID) — so a harmless name such as "design" is redacted too: a report
//     with one value too few is better than one with a leaked secret;
//   - or has one of secretWords as a word of its own, the name being split at every
//     character that is not a letter or a digit, between letters and digits, and where a
//     lower-case letter meets an upper-case one (X-Otp, mysql_pwd, userPwd, connect.sid,
//     auth_code): these are short, and inside other words they mean nothing (footprint,
//     bypass, passenger).
//
// The lists were checked against Sentry's default denylist, gitleaks' generic-api-key
// keywords, OAuth 2.0, SAML, CAS and the headers of well-known APIs (limits_redact_test.go
// names each source).
var (
	secretExact     = []string{"authorization", "proxy-authorization", "cookie", "set-cookie", "policy"}
	secretPrefixes  = []string{"x-amz-", "x-goog-"}
	secretFragments = []string{"key", "token", "secret", "passw", "passphrase", "passcode", "auth", "sig", "credential", "creds",
		"session", "sessid", "cookie", "jwt", "bearer", "hmac", "csrf", "xsrf", "saml", "assertion"}
	secretWords = []string{"pass", "pwd", "pin", "otp", "totp", "hotp", "mfa", "code", "sid", "ticket"}
)

// secretName says whether a header or query parameter carries a secret, by the redaction
// rule above.
func secretName(name string) bool {
	n := strings.ToLower(name)
	for _, e := range secretExact {
		if n == e {
			return true
		}
	}
	for _, p := range secretPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	for _, f := range secretFragments {
		if strings.Contains(n, f) {
			return true
		}
	}
	secret := false
	nameWords(name, func(w string) bool {
		for _, sw := range secretWords {
			if strings.EqualFold(w, sw) {
				secret = true
				return false
			}
		}
		return true
	})
	return secret
}

// nameWords calls yield with each word of a name — split at every byte that is not an ASCII
// letter or digit, between letters and digits, and before an upper-case letter that follows
// a lower-case one — until yield returns false.
func nameWords(name string, yield func(string) bool) {
	kind := func(c byte) int {
		switch {
		case c >= 'a' && c <= 'z':
			return 1
		case c >= 'A' && c <= 'Z':
			return 2
		case c >= '0' && c <= '9':
			return 3
		}
		return 0
	}
	start := -1
	for i := 0; i <= len(name); i++ {
		k := 0
		if i < len(name) {
			k = kind(name[i])
		}
		if start >= 0 {
			prev := kind(name[i-1])
			split := k == 0 || (prev == 3) != (k == 3) || (prev == 1 && k == 2)
			if split {
				if !yield(name[start:i]) {
					return
				}
				start = -1
			}
		}
		if start < 0 && k != 0 {
			start = i
		}
	}
}

// RedactHeader returns "Name: value" with the value replaced when the name is secret.
func RedactHeader(name, value string) string {
	if secretName(name) {
		value = Redacted
	}
	return name + ": " + value
}

// RedactURL is the one redaction of a URL, wherever one is shown or saved: userinfo (user and
// password, or a token alone, as in https://ghp_…@github.com/) becomes REDACTED, a fragment
// (#access_token=… of an OAuth implicit grant) becomes REDACTED, and so do the values of
// secret query parameters (secretName). The rest stays as typed. A string that does not
// parse as a URL is redacted the same way, piece by piece, so a malformed URL's password
// does not reach an error message.
func RedactURL(raw string) string {
	// The authority runs from after "//" (the start, without a scheme) to the first "/":
	// its userinfo ends at the last "@" there, whatever "?" or "#" a password holds.
	from := 0
	if i := strings.Index(raw, "//"); i >= 0 {
		from = i + 2
	}
	to := len(raw)
	if j := strings.IndexByte(raw[from:], '/'); j >= 0 {
		to = from + j
	}
	s := raw
	if at := strings.LastIndexByte(raw[from:to], '@'); at >= 0 {
		user := Redacted
		if strings.Contains(raw[from:from+at], ":") {
			user = Redacted + ":" + Redacted
		}
		s = raw[:from] + user + raw[from+at:]
	}
	rest, fragment, hasFragment := strings.Cut(s, "#")
	rest, query, hasQuery := strings.Cut(rest, "?")
	if hasQuery {
		rest += "?" + redactQuery(query)
	}
	switch {
	case hasFragment && fragment != "":
		rest += "#" + Redacted
	case hasFragment:
		rest += "#"
	}
	return rest
}

// redactQuery rewrites a raw query pair by pair, so the order and the non-secret values stay
// as typed.
func redactQuery(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		name, _, hasValue := strings.Cut(p, "=")
		dec, err := url.QueryUnescape(name)
		if err != nil {
			dec = name
		}
		if hasValue && secretName(dec) {
			parts[i] = name + "=" + Redacted
		}
	}
	return strings.Join(parts, "&")
}

// RedactError returns err with the URL of every *url.Error in its chain redacted (net/http
// and url.Parse put the whole URL, password included, in their messages), and any other
// occurrence of raw in its text replaced by RedactURL(raw).
func RedactError(err error, raw string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) && ue.URL != "" {
		msg = strings.ReplaceAll(msg, ue.URL, RedactURL(ue.URL))
	}
	if raw != "" {
		msg = strings.ReplaceAll(msg, raw, RedactURL(raw))
	}
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

// redactedError is an error whose text was redacted; errors.Is and As still see the original.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
