package probetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Cert is a self-signed certificate made for one test: its own root, so a client verifies it
// with --cacert of its PEM file. It is good for server and client authentication.
type Cert struct {
	TLS     tls.Certificate
	Pool    *x509.CertPool // holds the certificate itself, as a root
	CertPEM []byte
	KeyPEM  []byte
}

// NewCert makes a self-signed ECDSA P-256 certificate, valid for an hour, for names: DNS
// names, or IP addresses ("127.0.0.1").
func NewCert(names ...string) (*Cert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "patience probetest"},
		NotBefore:             time.Now().Add(-time.Minute),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	c := &Cert{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
		Pool:    x509.NewCertPool(),
	}
	if c.TLS, err = tls.X509KeyPair(c.CertPEM, c.KeyPEM); err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	c.Pool.AddCert(leaf)
	return c, nil
}

// WriteFiles writes the certificate and key as NAME.pem and NAME.key in dir.
func (c *Cert) WriteFiles(dir, name string) (certFile, keyFile string, err error) {
	certFile, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+".key")
	if err = os.WriteFile(certFile, c.CertPEM, 0o600); err != nil {
		return "", "", err
	}
	return certFile, keyFile, os.WriteFile(keyFile, c.KeyPEM, 0o600)
}

// TLSOptions configure StartTLS.
type TLSOptions struct {
	// HTTP2 offers h2 by ALPN besides http/1.1 (Go's own HTTP/2 server).
	HTTP2 bool
	// ClientCA, when set, demands a client certificate it verifies (mutual TLS).
	ClientCA *Cert
}

// StartTLS serves h over TLS with cert on 127.0.0.1 at a free port; URL is https://….
func StartTLS(h http.Handler, cert *Cert, o TLSOptions) (*Server, error) {
	ln, err := listenLoopback("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert.TLS}, MinVersion: tls.VersionTLS12}
	if o.ClientCA != nil {
		cfg.ClientAuth, cfg.ClientCAs = tls.RequireAndVerifyClientCert, o.ClientCA.Pool
	}
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetHTTP2(o.HTTP2)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, TLSConfig: cfg, Protocols: p, ErrorLog: quietLog()}
	s := &Server{URL: "https://" + ln.Addr().String(), srv: srv, ln: ln}
	go func() { _ = srv.ServeTLS(ln, "", "") }()
	return s, nil
}

// StartH2C serves h on 127.0.0.1 at a free port over HTTP/1.1 and over HTTP/2 without TLS
// for clients with prior knowledge (h2c, Go's own server); URL is http://….
func StartH2C(h http.Handler) (*Server, error) {
	ln, err := listenLoopback("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, Protocols: p}
	s := &Server{URL: "http://" + ln.Addr().String(), srv: srv, ln: ln}
	go func() { _ = srv.Serve(ln) }()
	return s, nil
}

// quietLog drops the server's log: the handshake failures a test provokes on purpose.
func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }
