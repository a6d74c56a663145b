package notcalls

import (
	"net/http"
	"net/url"
	"sync"
)

var once sync.Once

type cache struct{ m map[string]string }

func (c *cache) Get(k string) string { return c.m[k] }

func work(v url.Values, h http.Header) string {
	once.Do(func() {})
	c := &cache{}
	_ = h.Get("Accept")
	return c.Get("k") + v.Get("q")
}

type kv struct{ client *store }

type api struct{ client *http.Client }

type store struct{}

func (s *store) Get(key string) string { return key }

func newAPI() *api { return &api{client: &http.Client{}} }

func newKV() *kv { return &kv{client: &store{}} }

// k.client is a store, a.client an HTTP client: the field name alone cannot tell them apart.
func (k *kv) lookup() string { return k.client.Get("k") }

func shadow() string {
	shared := &store{}
	return shared.Get("k")
}

var shared = &http.Client{}
