package live

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// IdempotencyKeyHeader is the request header of draft-ietf-httpapi-idempotency-key-header.
const IdempotencyKeyHeader = "Idempotency-Key"

// LogicalIDHeader names the logical request an attempt belongs to. The live driver sends the
// same value on every attempt of one logical request, so the server can count duplicate side
// effects even for requests without an Idempotency-Key (the simulator's `duplicates`). It
// is a measurement aid: the server never deduplicates on it.
const LogicalIDHeader = "Patience-Logical-Id"

// ReplayedHeader marks a response replayed from the idempotency store (the name Stripe uses).
const ReplayedHeader = "Idempotent-Replayed"

// maxKeyLen bounds a key; the draft sets no limit, Stripe allows 255 characters.
const maxKeyLen = 255

// ParseIdempotencyKey reads an Idempotency-Key field value. The draft makes it an RFC 8941
// Item whose value is a String (`"8e03978e-…"`); many clients (Stripe's SDKs among them)
// send a bare token, which is accepted too. Parameters, empty keys, control characters and
// keys over 255 bytes are rejected.
func ParseIdempotencyKey(v string) (string, error) {
	v = strings.Trim(v, " \t")
	if v == "" {
		return "", errors.New("empty Idempotency-Key")
	}
	var key string
	if v[0] == '"' {
		// RFC 8941 §3.3.3: sf-string = DQUOTE *chr DQUOTE; chr = unescaped / escaped;
		// unescaped = %x20-21 / %x23-5B / %x5D-7E; escaped = "\" ( DQUOTE / "\" ).
		var b strings.Builder
		i := 1
		closed := false
		for ; i < len(v); i++ {
			c := v[i]
			switch {
			case c == '\\':
				if i+1 >= len(v) || (v[i+1] != '"' && v[i+1] != '\\') {
					return "", fmt.Errorf("Idempotency-Key: bad escape at byte %d", i)
				}
				i++
				b.WriteByte(v[i])
			case c == '"':
				closed = true
			case c < 0x20 || c > 0x7e:
				return "", fmt.Errorf("Idempotency-Key: invalid character at byte %d", i)
			default:
				b.WriteByte(c)
			}
			if closed {
				break
			}
		}
		if !closed {
			return "", errors.New("Idempotency-Key: unterminated string")
		}
		if i+1 != len(v) {
			return "", errors.New("Idempotency-Key: unexpected characters after the string (parameters are not supported)")
		}
		key = b.String()
	} else {
		for i := 0; i < len(v); i++ {
			if c := v[i]; c <= 0x20 || c > 0x7e || c == '"' || c == ',' || c == ';' {
				return "", fmt.Errorf("Idempotency-Key: invalid character at byte %d (quote the key as an RFC 8941 string)", i)
			}
		}
		key = v
	}
	if key == "" {
		return "", errors.New("empty Idempotency-Key")
	}
	if len(key) > maxKeyLen {
		return "", fmt.Errorf("Idempotency-Key longer than %d bytes", maxKeyLen)
	}
	return key, nil
}

// storedResponse is a completed response kept for replay.
type storedResponse struct {
	status int
	header http.Header
	body   []byte
}

// keyEntry is one Idempotency-Key: in flight until resp is set.
type keyEntry struct {
	fingerprint [32]byte
	resp        *storedResponse
}

// keyVerdict is what the store says about an incoming keyed request.
type keyVerdict int

const (
	keyNew      keyVerdict = iota // first use: the caller must finish or release it
	keyInFlight                   // 409 Conflict
	keyMismatch                   // 422 Unprocessable Content
	keyDone                       // replay the stored response
)

// keyStore implements the draft's server side: a key in flight answers 409, a key reused
// with a different payload 422, a completed key replays the stored response. Keys never
// expire during a run (a run is minutes; the draft leaves expiry to the server).
type keyStore struct {
	mu   sync.Mutex
	keys map[string]*keyEntry
}

func newKeyStore() *keyStore { return &keyStore{keys: map[string]*keyEntry{}} }

// fingerprint is the draft's suggested payload fingerprint: a digest of the body.
func fingerprint(body []byte) [32]byte { return sha256.Sum256(body) }

// begin registers key for a request with the given fingerprint, or says why it cannot run.
func (s *keyStore) begin(key string, fp [32]byte) (keyVerdict, *storedResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.keys[key]
	if !ok {
		s.keys[key] = &keyEntry{fingerprint: fp}
		return keyNew, nil
	}
	if e.fingerprint != fp {
		return keyMismatch, nil
	}
	if e.resp == nil {
		return keyInFlight, nil
	}
	return keyDone, e.resp
}

// finish stores the response of an executed request.
func (s *keyStore) finish(key string, resp *storedResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.keys[key]; ok {
		e.resp = resp
	}
}

// release forgets a key whose request was not executed (a fault or an overflow answered it
// first), so a retry with the same key runs instead of meeting 409.
func (s *keyStore) release(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.keys[key]; ok && e.resp == nil {
		delete(s.keys, key)
	}
}

func (s *keyStore) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.keys)
}
