package transport

import (
	"net"
	"net/http"
	"time"
)

var tuned = &http.Client{
	Transport: &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
		ResponseHeaderTimeout: 5 * time.Second,
		TLSHandshakeTimeout:   3 * time.Second,
	},
}

func dialerOnly() *http.Client {
	d := &net.Dialer{Timeout: 1 * time.Second}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
}

func headOnly() {
	_, _ = tuned.Get("https://api.example.test/slow")
}

func both() {
	c := dialerOnly()
	_, _ = c.Get("https://api.example.test/fast")
}

func cloned() {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 4 * time.Second
	c := &http.Client{Transport: t, Timeout: 20 * time.Second}
	_, _ = c.Get("https://api.example.test/clone")
}

func bareTransport() {
	c := &http.Client{Transport: &http.Transport{}}
	_, _ = c.Get("https://api.example.test/bare")
}
