package probe

import (
	"net/url"
	"strings"
)

// Redacted replaces a secret in reports and JSON.
const Redacted = "REDACTED"

// secretName says whether a header or query parameter carries a secret: the credential
// headers of RFC 9110 §11.6 and RFC 6265, and anything whose name contains "key" or "token"
// (API keys, access tokens), case-insensitive.
func secretName(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	return strings.Contains(n, "key") || strings.Contains(n, "token")
}

// RedactHeader returns "Name: value" with the value replaced when the name is secret.
func RedactHeader(name, value string) string {
	if secretName(name) {
		value = Redacted
	}
	return name + ": " + value
}

// RedactURL hides secret query values and any userinfo password in raw.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), Redacted)
		}
	}
	if u.RawQuery != "" {
		// Rewrite pair by pair so the order and the non-secret values stay as typed.
		parts := strings.Split(u.RawQuery, "&")
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
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.String()
}
