package live

import (
	"strings"
	"testing"
)

func TestParseIdempotencyKey(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`"8e03978e-40d5-43e8-bc93-6894a57f9324"`, "8e03978e-40d5-43e8-bc93-6894a57f9324", true},
		{` "a b" `, "a b", true},
		{`"a\"b\\c"`, `a"b\c`, true},
		{`bare-token_1`, "bare-token_1", true},
		{``, "", false},
		{`""`, "", false},
		{`"abc`, "", false},
		{`"a\qb"`, "", false},
		{`"abc";p=1`, "", false},
		{`a b`, "", false},
		{`a,b`, "", false},
		{"\"a\x01\"", "", false},
		{`"` + strings.Repeat("k", 256) + `"`, "", false},
		{`"` + strings.Repeat("k", 255) + `"`, strings.Repeat("k", 255), true},
	} {
		got, err := ParseIdempotencyKey(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseIdempotencyKey(%q) = %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// FuzzParseIdempotencyKey: never panics; an accepted key, written back as an RFC 8941
// string, parses to itself.
func FuzzParseIdempotencyKey(f *testing.F) {
	for _, s := range []string{`"abc"`, `abc`, `"a\"b"`, `"`, `"\`, ``, `"x";y`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		key, err := ParseIdempotencyKey(in)
		if err != nil {
			return
		}
		if key == "" || len(key) > maxKeyLen {
			t.Fatalf("accepted %q as %q", in, key)
		}
		quoted := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(key) + `"`
		again, err := ParseIdempotencyKey(quoted)
		if err != nil || again != key {
			t.Fatalf("round trip of %q: %q %v", key, again, err)
		}
	})
}

func TestKeyStore(t *testing.T) {
	s := newKeyStore()
	a, b := fingerprint([]byte("a")), fingerprint([]byte("b"))
	if v, _ := s.begin("k", a); v != keyNew {
		t.Fatalf("first use: %v", v)
	}
	if v, _ := s.begin("k", a); v != keyInFlight {
		t.Fatalf("in flight: %v", v)
	}
	if v, _ := s.begin("k", b); v != keyMismatch {
		t.Fatalf("other payload: %v", v)
	}
	s.release("k")
	if v, _ := s.begin("k", b); v != keyNew {
		t.Fatalf("after release the key is free: %v", v)
	}
	s.finish("k", &storedResponse{status: 201})
	s.release("k") // a finished key is never released
	if v, r := s.begin("k", b); v != keyDone || r.status != 201 {
		t.Fatalf("done: %v %v", v, r)
	}
}
