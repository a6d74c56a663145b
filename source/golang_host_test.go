package source

import (
	"testing"
)

// goHosts calls the same service every way the reader gives its host: a literal, a package
// constant, a concatenation, a local assigned once, NewRequest and NewRequestWithContext; and
// the ways it does not (a parameter, a local assigned twice, a relative or templated URL).
const goHosts = `package hosts

import (
	"context"
	"net/http"
	"strings"
)

const base = "https://API.Example.com:8443"

var endpoint = base + "/v1/items"

func Calls(ctx context.Context, u string) {
	_, _ = http.Get("https://api.example.com/v1")
	_, _ = http.Get(base + "/v1")
	_, _ = http.Get(endpoint)
	_, _ = http.Post("http://pay.example.com/charges", "application/json", strings.NewReader("{}"))
	local := "https://local.example.com/x"
	_, _ = http.Get(local)
	req, _ := http.NewRequest("GET", "https://req.example.com/a", nil)
	_, _ = http.DefaultClient.Do(req)
	req2, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/b", nil)
	_, _ = http.DefaultClient.Do(req2)
	_, _ = http.Get(u)
	twice := "https://one.example.com"
	twice = "https://two.example.com"
	_, _ = http.Get(twice)
	_, _ = http.Get("/relative")
	_, _ = http.Get("https://%s.example.com")
}
`

func TestGoHosts(t *testing.T) {
	calls, err := Go.Read([]Input{{Path: "hosts.go", Data: []byte(goHosts)}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"api.example.com", "api.example.com", "api.example.com", "pay.example.com", "local.example.com",
		"req.example.com", "api.example.com", "", "", "", ""}
	if len(calls) != len(want) {
		t.Fatalf("%d calls, want %d: %+v", len(calls), len(want), calls)
	}
	for i, c := range calls {
		if c.Host != want[i] {
			t.Errorf("call at line %d: host %q, want %q", c.Line, c.Host, want[i])
		}
	}
}
