package unresolved

import (
	"net/http"
	"time"
)

type Config struct{ Timeout time.Duration }

func configured(cfg Config) {
	c := &http.Client{Timeout: cfg.Timeout}
	_, _ = c.Get("https://api.example.test/a")
}

func given(c *http.Client, req *http.Request) {
	_, _ = c.Do(req)
}

func wrapped(rt http.RoundTripper) {
	c := &http.Client{Transport: rt}
	_, _ = c.Get("https://api.example.test/b")
}
