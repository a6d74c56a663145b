package probe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/profile"
)

// TLS as configured (issue 18 item 2): the roots to verify the server with (--cacert, else
// the system's), a client certificate (--cert, --key), the name sent in SNI and verified
// (--servername, else the URL's host) and fixed addresses for host:port pairs (--resolve, as
// curl's), so a service can be probed at an address its certificate does not name.

func tlsInfo(st tls.ConnectionState) *profile.TLSInfo {
	return &profile.TLSInfo{
		Version: tls.VersionName(st.Version), Cipher: tls.CipherSuiteName(st.CipherSuite),
		ALPN: st.NegotiatedProtocol, ServerName: st.ServerName,
	}
}

// tlsConfig is the client configuration of a run: --insecure, --cacert (which replaces the
// system roots, as curl's does), --cert with --key, and --servername.
func tlsConfig(cfg *Config) (*tls.Config, error) {
	c := &tls.Config{InsecureSkipVerify: cfg.Insecure, ServerName: cfg.ServerName} //nolint:gosec // --insecure is the user's explicit choice
	if cfg.CACert != "" {
		// Read capped and stoppable like every input: /dev/zero or a FIFO with no writer
		// named here ends in an error or at Ctrl-C.
		pem, err := readPEM(cfg.CACert, cfg.Stdin)
		if err != nil {
			return nil, fmt.Errorf("--cacert: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--cacert %s: no PEM certificate in the file", pemName(cfg.CACert))
		}
		c.RootCAs = pool
	}
	if cfg.Cert != "" {
		certPEM, err := readPEM(cfg.Cert, cfg.Stdin)
		if err != nil {
			return nil, fmt.Errorf("--cert: %w", err)
		}
		keyPEM, err := readPEM(cfg.Key, cfg.Stdin)
		if err != nil {
			return nil, fmt.Errorf("--key: %w", err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("--cert/--key: %w", err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}

// stdinName names standard input in the errors of a PEM flag "-".
const stdinName = "(stdin)"

// readPEM reads a PEM flag's file, or stdin for "-" (when non-nil), capped at input.MaxPEM.
func readPEM(path string, stdin io.Reader) ([]byte, error) {
	if path == input.Stdin && stdin != nil {
		return input.Read(stdin, stdinName, input.MaxPEM)
	}
	return input.ReadFile(path, input.MaxPEM, nil)
}

// pemName is how an error names a PEM flag's input.
func pemName(path string) string {
	if path == input.Stdin {
		return stdinName
	}
	return path
}

// parseResolve reads one --resolve HOST:PORT:ADDR[,ADDR…] (curl's syntax; an IPv6 address
// may be bracketed) into its key "host:port" and the addresses to dial instead.
func parseResolve(s string) (key string, addrs []string, err error) {
	host, rest, ok := strings.Cut(s, ":")
	port, list, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 || host == "" || port == "" || list == "" {
		return "", nil, fmt.Errorf("--resolve %q: want HOST:PORT:ADDR, e.g. api.example.com:443:127.0.0.1", s)
	}
	for a := range strings.SplitSeq(list, ",") {
		a = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(a), "["), "]")
		if net.ParseIP(a) == nil {
			return "", nil, fmt.Errorf("--resolve %q: %q is not an IP address", s, a)
		}
		addrs = append(addrs, net.JoinHostPort(a, port))
	}
	return strings.ToLower(host) + ":" + port, addrs, nil
}

// resolveMap reads every --resolve entry; a later entry for the same host:port wins.
func resolveMap(entries []string) (map[string][]string, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	m := map[string][]string{}
	for _, e := range entries {
		k, addrs, err := parseResolve(e)
		if err != nil {
			return nil, err
		}
		m[k] = addrs
	}
	return m, nil
}

// dialContext dials addr, or the --resolve addresses given for it, in order: the first that
// connects wins. It is the net.Dialer of the direct path and of net/http's Transport.
func (d *dialer) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	addrs, ok := d.resolve[strings.ToLower(addr)]
	if !ok {
		return d.net.DialContext(ctx, network, addr)
	}
	var errs []error
	for _, a := range addrs {
		c, err := d.net.DialContext(ctx, network, a)
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}
