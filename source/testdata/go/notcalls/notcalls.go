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
