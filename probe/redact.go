package probe

import (
	"errors"
	"net/url"
	"strings"
)

// Redacted replaces a secret in reports and JSON.
const Redacted = "REDACTED"

// secretWords are the parts of a header or query parameter name that mark a secret: API
// keys, access and refresh tokens, client secrets, passwords, Authorization-like schemes,
// signatures of pre-signed URLs (AWS SigV4 X-Amz-Signature, GCS X-Goog-Signature, Azure
// SAS sig), credentials and session ids. Matched case-insensitively anywhere in the name, so
// a harmless name such as "design" is redacted too: a report with one value too few is
// better than one with a leaked secret.
var secretWords = []string{"key", "token", "secret", "password", "passwd", "auth", "sig", "signature", "credential", "session"}

// secretName says whether a header or query parameter carries a secret: the credential
// headers of RFC 9110 §11.6 and RFC 6265, every X-Amz-* parameter (the SigV4 signing set:
// a pre-signed URL's date, expiry and signed headers narrow down the signature), and any
// name containing one of secretWords.
func secretName(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	if strings.HasPrefix(n, "x-amz-") {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
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
