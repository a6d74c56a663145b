package policy

import "testing"

func st(code int) Outcome { return Outcome{Kind: Status, Status: code} }

func TestClassify(t *testing.T) {
	tests := []struct {
		o    Outcome
		want Class
	}{
		{Outcome{Kind: Success}, ClassSuccess},
		{st(200), ClassSuccess},
		{st(204), ClassSuccess},
		{st(304), ClassSuccess},
		{st(400), ClassRejected},
		{st(401), ClassRejected},
		{st(404), ClassRejected},
		{st(422), ClassRejected},
		{st(499), ClassRejected},
		{st(408), ClassTransient},
		{st(409), ClassTransient},
		{st(429), ClassTransient},
		{st(500), ClassUnknown},
		{st(501), ClassUnknown},
		{st(503), ClassUnknown},
		{st(599), ClassUnknown},
		{st(0), ClassUnknown},
		{st(999), ClassUnknown},
		{st(101), ClassUnknown},
		{Outcome{Kind: Timeout}, ClassUnknown},
		{Outcome{Kind: Reset}, ClassUnknown},
		{Outcome{Kind: Refused}, ClassNeverLeft},
		{Outcome{Kind: ConnectTimeout}, ClassNeverLeft},
		{Outcome{Kind: OutcomeKind(42)}, ClassUnknown},
	}
	for _, tt := range tests {
		if got := Classify(tt.o); got != tt.want {
			t.Errorf("Classify(%v %d) = %v, want %v", tt.o.Kind, tt.o.Status, got, tt.want)
		}
	}
}

func TestIdempotent(t *testing.T) {
	for m, want := range map[string]bool{
		"": true, "GET": true, "get": true, "HEAD": true, "OPTIONS": true, "PUT": true,
		"DELETE": true, "TRACE": true, "POST": false, "post": false, "PATCH": false, "CONNECT": false,
	} {
		if got := (Request{Method: m}).Idempotent(); got != want {
			t.Errorf("Idempotent(%q) = %v, want %v", m, got, want)
		}
	}
}

// TestRetryableTable walks the classification table of docs/design.md §5 across methods, keys and
// the non_idempotent setting, with the default `on` list (connect, timeout, reset, 408, 409, 429, 5xx)
// plus 409 so that every transient status is listed.
func TestRetryableTable(t *testing.T) {
	on := []string{"connect", "timeout", "reset", "408", "409", "429", "5xx"}
	outcomes := []struct {
		name string
		o    Outcome
		// retryable for an idempotent request, for POST without key, POST with key
		// under non_idempotent never / with_key / always.
		idem                 bool
		never, withKey, keyW bool // keyW: POST with key under with_key
		always               bool
	}{
		{"200", st(200), false, false, false, false, false},
		{"success", Outcome{Kind: Success}, false, false, false, false, false},
		{"404 rejected", st(404), false, false, false, false, false},
		{"400 rejected", st(400), false, false, false, false, false},
		{"408 transient", st(408), true, true, true, true, true},
		{"409 transient", st(409), true, true, true, true, true},
		{"429 transient", st(429), true, true, true, true, true},
		{"500 unknown", st(500), true, false, false, true, true},
		{"503 unknown", st(503), true, false, false, true, true},
		{"timeout unknown", Outcome{Kind: Timeout}, true, false, false, true, true},
		{"reset unknown", Outcome{Kind: Reset}, true, false, false, true, true},
		{"refused never left", Outcome{Kind: Refused}, true, true, true, true, true},
		{"connect timeout never left", Outcome{Kind: ConnectTimeout}, true, true, true, true, true},
	}
	for _, tt := range outcomes {
		t.Run(tt.name, func(t *testing.T) {
			check := func(label string, ni NonIdempotent, req Request, want bool) {
				t.Helper()
				p := &Policy{Retry: Retry{On: on, NonIdempotent: ni}}
				if got := p.Retryable(req, tt.o); got != want {
					t.Errorf("%s: Retryable = %v, want %v", label, got, want)
				}
			}
			for _, m := range []string{"GET", "PUT", "DELETE"} {
				for _, ni := range append([]NonIdempotent{""}, NonIdempotents()...) {
					check(m+"/"+string(ni), ni, Request{Method: m}, tt.idem)
				}
			}
			check("POST never", NonIdempotentNever, Request{Method: "POST"}, tt.never)
			check("POST never+key", NonIdempotentNever, Request{Method: "POST", HasKey: true}, tt.never)
			check("POST with_key no key", NonIdempotentWithKey, Request{Method: "POST"}, tt.withKey)
			check("POST with_key key", NonIdempotentWithKey, Request{Method: "POST", HasKey: true}, tt.keyW)
			check("POST always", NonIdempotentAlways, Request{Method: "POST"}, tt.always)
			check("PATCH always", NonIdempotentAlways, Request{Method: "PATCH"}, tt.always)
		})
	}
}

func TestRetryOnLists(t *testing.T) {
	get := Request{Method: "GET"}
	tests := []struct {
		name  string
		on    []string
		never []int
		o     Outcome
		want  bool
	}{
		{"nil on = default: 503", nil, nil, st(503), true},
		{"nil on = default: 409 listed (the same key still in flight)", nil, nil, st(409), true},
		{"nil on = default: 404 not listed", nil, nil, st(404), false},
		{"nil on = default: refused", nil, nil, Outcome{Kind: Refused}, true},
		{"empty on retries nothing", []string{}, nil, st(503), false},
		{"never wins over class", []string{"5xx"}, []int{501}, st(501), false},
		{"never leaves others", []string{"5xx"}, []int{501}, st(502), true},
		{"exact status", []string{"503"}, nil, st(503), true},
		{"exact status only", []string{"503"}, nil, st(502), false},
		{"upper-case class", []string{"5XX"}, nil, st(500), true},
		{"timeout not listed", []string{"5xx", "connect"}, nil, Outcome{Kind: Timeout}, false},
		{"connect covers connect timeout", []string{"connect"}, nil, Outcome{Kind: ConnectTimeout}, true},
		{"refused token", []string{"refused"}, nil, Outcome{Kind: Refused}, true},
		{"refused token not connect timeout", []string{"refused"}, nil, Outcome{Kind: ConnectTimeout}, false},
		{"connect_timeout token", []string{"connect_timeout"}, nil, Outcome{Kind: ConnectTimeout}, true},
		{"reset", []string{"reset"}, nil, Outcome{Kind: Reset}, true},
		// A 4xx the `on` list names explicitly is retried (naive clients do; check flags PT007).
		{"4xx listed: 404 retried", []string{"4xx"}, nil, st(404), true},
		{"exact 404 listed", []string{"404"}, nil, st(404), true},
		{"4xx not listed", []string{"5xx", "429"}, nil, st(404), false},
		{"unknown token ignored", []string{"bogus", "5x"}, nil, st(500), false},
	}
	for _, tt := range tests {
		p := &Policy{Retry: Retry{On: tt.on, Never: tt.never}}
		if got := p.Retryable(get, tt.o); got != tt.want {
			t.Errorf("%s: Retryable = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestValidRetryOn(t *testing.T) {
	for tok, want := range map[string]bool{
		"connect": true, "refused": true, "connect_timeout": true, "timeout": true, "reset": true,
		"5xx": true, "4XX": true, "1xx": true, "6xx": false, "0xx": false, "429": true, "599": true,
		"600": false, "099": false, "42": false, "": false, "5x": false, "tImeout": false,
	} {
		if got := ValidRetryOn(tok); got != want {
			t.Errorf("ValidRetryOn(%q) = %v, want %v", tok, got, want)
		}
	}
}

func TestBreakerFailure(t *testing.T) {
	for _, tt := range []struct {
		o    Outcome
		want bool
	}{
		{Outcome{Kind: Success}, false}, {st(200), false}, {st(404), false}, {st(429), false},
		{st(408), false}, {st(500), true}, {st(503), true}, {Outcome{Kind: Timeout}, true},
		{Outcome{Kind: Reset}, true}, {Outcome{Kind: Refused}, true}, {Outcome{Kind: ConnectTimeout}, true},
	} {
		if got := BreakerFailure(tt.o); got != tt.want {
			t.Errorf("BreakerFailure(%v %d) = %v, want %v", tt.o.Kind, tt.o.Status, got, tt.want)
		}
	}
}

func TestStrings(t *testing.T) {
	if ConnectTimeout.String() != "connect_timeout" || OutcomeKind(99).String() != "unknown" {
		t.Error("OutcomeKind.String")
	}
	if ClassNeverLeft.String() != "never_left" || Class(-1).String() != "invalid" {
		t.Error("Class.String")
	}
}
