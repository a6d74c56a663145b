package cmd

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/patience-dev/patience/probe/probetest"
)

// loopbackTLSTargetMain is the loopback-tls-target program of the probe scripts:
//
//	exec loopback-tls-target FILE &NAME&
//
// It makes a self-signed certificate for 127.0.0.1 and api.test, writes it as test.pem
// beside FILE, and serves loopbackTargets over TLS (Go's server, h2 and http/1.1 by ALPN)
// and over h2c (prior knowledge and HTTP/1.1) on two 127.0.0.1 ports. It writes FILE.h2c
// (the h2c base URL) and FILE.port (the TLS port, for --resolve), then FILE (the https base
// URL), so that waiturl FILE means all are there. It stops, exit 0, on SIGINT or SIGTERM.
func loopbackTLSTargetMain() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: loopback-tls-target FILE")
		os.Exit(2)
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "loopback-tls-target:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	file := os.Args[1]
	cert, err := probetest.NewCert("127.0.0.1", "api.test")
	if err != nil {
		fail(err)
	}
	if _, _, err := cert.WriteFiles(filepath.Dir(file), "test"); err != nil {
		fail(err)
	}
	mux := http.NewServeMux()
	for path, h := range loopbackTargets() {
		mux.Handle(path, h)
	}
	tlsSrv, err := probetest.StartTLS(mux, cert, probetest.TLSOptions{HTTP2: true})
	if err != nil {
		fail(err)
	}
	defer tlsSrv.Close()
	h2c, err := probetest.StartH2C(mux)
	if err != nil {
		fail(err)
	}
	defer h2c.Close()
	u, err := url.Parse(tlsSrv.URL)
	if err != nil {
		fail(err)
	}
	for _, f := range []struct{ name, body string }{{file + ".h2c", h2c.URL}, {file + ".port", u.Port()}, {file, tlsSrv.URL}} {
		if err := os.WriteFile(f.name+".tmp", []byte(f.body+"\n"), 0o644); err != nil {
			fail(err)
		}
		if err := os.Rename(f.name+".tmp", f.name); err != nil {
			fail(err)
		}
	}
	<-ctx.Done()
}
