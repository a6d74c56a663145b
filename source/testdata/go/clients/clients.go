package clients

import (
	"net/http"
	"time"
)

const apiTimeout = 8 * time.Second

var shared = &http.Client{Timeout: apiTimeout}

type Service struct {
	client *http.Client
	base   string
}

func NewService(base string) *Service {
	return &Service{base: base, client: newClient()}
}

func newClient() *http.Client {
	c := &http.Client{}
	c.Timeout = 3 * time.Second
	return c
}

func local() {
	c := &http.Client{Timeout: 1500 * time.Millisecond}
	_, _ = c.Get("https://api.example.test/a")
}

func packageLevel() {
	_, _ = shared.Get("https://api.example.test/b")
}

func (s *Service) field() {
	_, _ = s.client.Get(s.base + "/c")
}

func bare() {
	var c http.Client
	c = http.Client{}
	_, _ = c.Get("https://api.example.test/d")
}

func zero() {
	c := http.Client{Timeout: 0}
	_, _ = c.Get("https://api.example.test/e")
}

func pick(secure bool) *http.Client {
	if secure {
		return &http.Client{Transport: &http.Transport{}}
	}
	return http.DefaultClient
}

func picked() {
	_, _ = pick(true).Get("https://api.example.test/f")
}
