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

type doer interface {
	Do(*http.Request) (*http.Response, error)
}

func through(d doer, req *http.Request) {
	_, _ = d.Do(req)
}

func copied(client *http.Client) {
	c := *client
	client = &c
	client.CheckRedirect = nil
	_, _ = client.Get("https://api.example.test/c")
}

type API struct{ build func() (*http.Client, error) }

func (a *API) client() (*http.Client, error) { return a.build() }

func (a *API) fetch(req *http.Request) {
	c, _ := a.client()
	_, _ = c.Do(req)
}

type Options struct{ HttpClient func() (*http.Client, error) }

func run(opts *Options) {
	c, _ := opts.HttpClient()
	_, _ = c.Get("https://api.example.test/d")
}
