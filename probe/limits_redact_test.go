package probe_test

import (
	"strings"
	"testing"

	"github.com/patience-dev/patience/probe"
)

// secretNames are real-world names that carry secrets in headers or query parameters, each
// with where it comes from. Every one must be redacted, as a header and as a query
// parameter (issue 24 item 10).
var secretNames = []struct{ source, names string }{
	// The issue's own list: names an audit found shown in clear.
	{"issue 24 item 10, headers", "X-Jwt X-Bearer X-Pass X-Otp"},
	{"issue 24 item 10, query parameters", "pwd pass jwt code otp hmac"},
	// CloudFront signed URLs (AWS CloudFront Developer Guide, "Create a signed URL using a
	// canned policy" / "custom policy": Expires, Policy, Signature, Key-Pair-Id).
	{"CloudFront signed URL", "Policy Signature Key-Pair-Id"},
	// Sentry's default denylist of secret field names, applied to request headers, cookies
	// and data (getsentry/sentry-python sentry_sdk/scrubber.py DEFAULT_DENYLIST, commit
	// 022b38d87188a4ede9af1a8a5aa1779ac366a7ea), less the addresses it also lists (below).
	{"sentry-python DEFAULT_DENYLIST", "password passwd secret api_key apikey auth credentials mysql_pwd privatekey private_key token session " +
		"csrftoken sessionid x_csrftoken set_cookie cookie authorization x_api_key aiohttp_session connect.sid csrf_token csrf _csrf " +
		"_csrf_token PHPSESSID _session user_session _xsrf XSRF-TOKEN"},
	// gitleaks' generic-api-key rule keywords (gitleaks/gitleaks config/gitleaks.toml, commit
	// 009e025ad4106ab333aa0b9dc4f2a884390d134c) — "access" and "api" alone are not names of
	// secrets (gitleaks pairs them with an entropy test of the value), their compounds are.
	{"gitleaks generic-api-key keywords", "auth key credential creds passwd password secret token access_token api_key"},
	// OAuth 2.0 and its extensions: the authorization code (RFC 6749 §4.1.2), tokens
	// (§4.2.2, §6; OpenID Connect Core §3.1.3.3 id_token), the client secret (§2.3.1), PKCE's
	// verifier (RFC 7636 §4.5), JWT assertions (RFC 7523 §2.1, §2.2).
	{"OAuth 2.0, OIDC", "code access_token refresh_token id_token client_secret code_verifier assertion client_assertion"},
	// SAML 2.0 HTTP bindings (SAMLResponse carries the signed assertion) and CAS service
	// tickets (Apereo CAS Protocol 3.0 §2.2.1 ticket).
	{"SAML, CAS", "SAMLResponse SAMLart ticket"},
	// Headers of well-known APIs: GitHub's two-factor code and webhook signature, Slack,
	// Stripe, Shopify and Twilio webhook signatures, GitLab personal tokens, HashiCorp Vault
	// and Consul tokens, Azure API Management keys, Google API keys, Docker's registry auth.
	{"well-known API headers", "X-GitHub-OTP X-Hub-Signature-256 X-Slack-Signature Stripe-Signature X-Shopify-Hmac-Sha256 " +
		"X-Twilio-Signature PRIVATE-TOKEN X-Vault-Token X-Consul-Token Ocp-Apim-Subscription-Key X-Goog-Api-Key X-Registry-Auth"},
	// Pre-signed cloud storage URLs: every SigV4 parameter of S3, GCS V4 signing's X-Goog-*,
	// Azure SAS's sig.
	{"pre-signed URLs", "X-Amz-Signature X-Amz-Credential X-Amz-Date X-Goog-Signature X-Goog-Credential X-Goog-Date sig"},
	// One-time codes and PINs under their usual names.
	{"one-time codes", "totp hotp mfa_code otp_code pin userPwd passcode passphrase"},
}

// visibleNames are names that carry no secret and stay readable in a report: what a
// request usually holds besides its credentials, and names that only look like one of the
// words (footprint holds "otp", bypass "pass", passenger "pass", encoding "cod").
var visibleNames = "Accept Accept-Encoding Accept-Language Content-Type User-Agent Cache-Control X-Request-Id Traceparent " +
	"X-Forwarded-For X-Real-Ip Origin Referer If-None-Match q page limit offset sort format lang version id callback " +
	"region footprint bypass_cache passenger_count compass ip_address remote_addr"

// TestRedactionRealWorldNames (issue 24 item 10): the widened rule redacts every name of
// secretNames in a header and in a query, and none of visibleNames. Sentry's list also
// names ip_address, remote_addr, x_forwarded_for and x_real_ip (personal data, not
// credentials: they stay visible, as addresses of the probe's own requests) and symfony (a
// framework's session cookie name, matched by nothing general).
func TestRedactionRealWorldNames(t *testing.T) {
	for _, src := range secretNames {
		for _, name := range strings.Fields(src.names) {
			if got := probe.RedactHeader(name, "s3cr3t"); got != name+": "+probe.Redacted {
				t.Errorf("%s: header %q shown as %q", src.source, name, got)
			}
			if got := probe.RedactURL("https://h/p?" + name + "=s3cr3t&q=1"); strings.Contains(got, "s3cr3t") || !strings.Contains(got, "q=1") {
				t.Errorf("%s: query parameter %q shown as %q", src.source, name, got)
			}
		}
	}
	for _, name := range strings.Fields(visibleNames) {
		if got := probe.RedactHeader(name, "v"); got != name+": v" {
			t.Errorf("%q is no secret but shown as %q", name, got)
		}
	}
}

// FuzzRedactName: whatever surrounds it, a secret word set off by hyphens makes the name
// secret; a header is shown either as typed or with its value REDACTED; and a query
// parameter whose name is secret never shows its value.
func FuzzRedactName(f *testing.F) {
	for _, seed := range []string{"", "X", "x-Api", "userPwd", "foot", "PRINT", "a.b_c", "Ünïcode", "\x00\xff"} {
		f.Add(seed, seed)
	}
	f.Fuzz(func(t *testing.T, prefix, suffix string) {
		for _, w := range []string{"pass", "pwd", "otp", "code", "jwt", "pin", "sid"} {
			name := prefix + "-" + w + "-" + suffix
			if got := probe.RedactHeader(name, "v"); got != name+": "+probe.Redacted {
				t.Fatalf("%q holds the word %q but is shown as %q", name, w, got)
			}
		}
		name := prefix + suffix
		got := probe.RedactHeader(name, "v4lue")
		secret := got == name+": "+probe.Redacted
		if !secret && got != name+": v4lue" {
			t.Fatalf("RedactHeader(%q) = %q", name, got)
		}
		if secret && !strings.ContainsAny(name, "&=#?/@%") {
			if u := probe.RedactURL("https://h/p?" + name + "=v4lue"); strings.Contains(u, "v4lue") {
				t.Fatalf("secret query parameter %q shown: %q", name, u)
			}
		}
	})
}
