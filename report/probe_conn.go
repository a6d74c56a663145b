package report

import (
	"fmt"
	"strings"

	"github.com/patience-dev/patience/profile"
)

// probeConnLine says what the requests spoke and on how many connections: "h2 · TLS 1.3,
// TLS_AES_128_GCM_SHA256, ALPN h2, SNI api.test · 1 connection, at most 4 streams at once on
// one (the server allows 250)". Empty for results that do not record it (merges, old
// profiles).
func probeConnLine(r *profile.Profile) string { return strings.Join(probeConnParts(r), " · ") }

// probeConnParts are probeConnLine's parts, which a narrow terminal wraps between: the
// protocol, the TLS session, the connections. None for results that do not record it.
func probeConnParts(r *profile.Profile) []string {
	t := r.Target
	if t.Protocol == "" {
		return nil
	}
	parts := []string{t.Protocol}
	if s := t.TLS; s != nil {
		tls := []string{s.Version, s.Cipher}
		if s.ALPN != "" {
			tls = append(tls, "ALPN "+s.ALPN)
		}
		if s.ServerName != "" {
			tls = append(tls, "SNI "+s.ServerName)
		}
		parts = append(parts, strings.Join(tls, ", "))
	}
	if c := r.Connections; c != nil {
		conns := unitFigures.plural(c.Opened, "connection")
		if c.PeakStreams > 0 {
			conns += fmt.Sprintf(", at most %s at once on one", unitFigures.plural(c.PeakStreams, "stream"))
			if c.MaxConcurrentStreams > 0 {
				conns += fmt.Sprintf(" (the server allows %d)", c.MaxConcurrentStreams)
			}
		}
		parts = append(parts, conns)
	}
	return parts
}
