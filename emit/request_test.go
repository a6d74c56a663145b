package emit

import (
	"strings"
	"testing"

	"github.com/patience-dev/patience/profile"
)

func TestParseRequests(t *testing.T) {
	for _, tc := range []struct {
		in      []string
		want    []Request
		wantErr string
	}{
		{in: []string{"requests", "NGINX=conf/api.conf"}, want: []Request{{Requests, ""}, {Nginx, "conf/api.conf"}}},
		{in: []string{"gateway-api=route.yaml"}, want: []Request{{GatewayAPI, "route.yaml"}}},
		{in: []string{"curl"}, wantErr: `unknown target "curl" (one of: aiohttp, alb, axios, envoy`},
		{in: []string{"nginx="}, wantErr: `"nginx=": want TARGET or TARGET=PATH, the path is empty`},
		{in: []string{"go", "go=main.go"}, wantErr: `"go=main.go": go is named twice`},
		{in: []string{"envoy=x.yaml", "istio=./x.yaml"}, wantErr: `"istio=./x.yaml": ./x.yaml is also where envoy is written`},
	} {
		got, err := ParseRequests(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("%q: got %v, want an error starting %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Fatalf("%q: got %v %v, want %v", tc.in, got, err, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q[%d]: got %+v, want %+v", tc.in, i, got[i], tc.want[i])
			}
		}
	}
}

// TestSourceOf: probe's URL as it is; advise's host or route completed by --emit-url, or a
// placeholder that cannot resolve, said in the note — never a guessed host.
func TestSourceOf(t *testing.T) {
	for _, tc := range []struct {
		target           profile.Target
		base             string
		url, name, notes string
	}{
		{profile.Target{URL: "https://payments.example.com/v1/charges?x=1", Method: "POST"}, "", "https://payments.example.com/v1/charges?x=1", "payments", ""},
		{profile.Target{URL: "http://127.0.0.1:8080/orders"}, "", "http://127.0.0.1:8080/orders", "api", ""},
		{profile.Target{URL: "/orders/{id}", Method: "GET"}, "https://shop.internal", "https://shop.internal/orders/{id}", "shop", ""},
		{profile.Target{URL: "/orders/{id}", Method: "GET"}, "", "https://api.example.invalid/orders/{id}", "api", "does not name the URL"},
		{profile.Target{URL: "(several hosts)"}, "", "https://api.example.invalid/", "api", "does not name the URL"},
		{profile.Target{URL: "delivery.example.com:8443"}, "", "https://delivery.example.com:8443/", "delivery", "https and / assumed"},
	} {
		s := SourceOf(tc.target, tc.base)
		if s.URL != tc.url || s.Name != tc.name || (tc.notes == "") != (s.Note == "") || !strings.Contains(s.Note, tc.notes) {
			t.Errorf("%+v base %q: got %+v, want url %q name %q note containing %q", tc.target, tc.base, s, tc.url, tc.name, tc.notes)
		}
		if s.Method == "" {
			t.Errorf("%+v: empty method", tc.target)
		}
	}
}

// TestEmitRefusesWithoutTimeout: a recommendation with no timeout writes nothing, and says why.
func TestEmitRefusesWithoutTimeout(t *testing.T) {
	p := &profile.Profile{Target: profile.Target{URL: "http://127.0.0.1:1/"}}
	out, errs := ForProfile(p, []Request{{Target: Nginx}}, "", "GET /x")
	if len(out) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "GET /x: emit nginx: the recommendation has no timeout to write") {
		t.Fatalf("got %v %v", out, errs)
	}
}
