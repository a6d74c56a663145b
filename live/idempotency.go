package live

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
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
	key         string
	fingerprint [32]byte
	resp        *storedResponse
	at          time.Time // when the key was first used: it expires ttl after
	prev, next  *keyEntry // the store's LRU list, most recent first
}

// keyVerdict is what the store says about an incoming keyed request.
type keyVerdict int

const (
	keyNew      keyVerdict = iota // first use: the caller must finish or release it
	keyInFlight                   // 409 Conflict
	keyMismatch                   // 422 Unprocessable Content
	keyDone                       // replay the stored response
)

// DefaultIdempotencyTTL is how long a key is kept (--idempotency-ttl): Stripe keeps keys for
// 24 hours, and the draft leaves expiry to the server.
const DefaultIdempotencyTTL = 24 * time.Hour

// DefaultMaxKeys caps the keys kept at once (about 1.5 KB each with the stored response):
// beyond it the least recently used key is forgotten, so a client sending a million
// distinct keys costs the server a bounded amount of memory.
const DefaultMaxKeys = 100_000

// keyStore implements the draft's server side: a key in flight answers 409, a key reused
// with a different payload 422, a completed key replays the stored response. Keys expire
// ttl after their first use, and at most max are kept: the least recently used go first.
type keyStore struct {
	mu         sync.Mutex
	keys       map[string]*keyEntry
	head, tail *keyEntry // most and least recently used
	ttl        time.Duration
	max        int
	now        func() time.Time
	evicted    int64
}

func newKeyStore() *keyStore { return newKeyStoreWith(0, 0) }

// newKeyStoreWith is newKeyStore with a TTL and a cap (0: the defaults).
func newKeyStoreWith(ttl time.Duration, max int) *keyStore {
	if ttl <= 0 {
		ttl = DefaultIdempotencyTTL
	}
	if max <= 0 {
		max = DefaultMaxKeys
	}
	return &keyStore{keys: map[string]*keyEntry{}, ttl: ttl, max: max, now: time.Now}
}

// fingerprint is the draft's suggested payload fingerprint: a digest of the body.
func fingerprint(body []byte) [32]byte { return sha256.Sum256(body) }

// begin registers key for a request with the given fingerprint, or says why it cannot run.
func (s *keyStore) begin(key string, fp [32]byte) (keyVerdict, *storedResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	e, ok := s.keys[key]
	if ok && now.Sub(e.at) >= s.ttl {
		s.remove(e)
		ok = false
	}
	if !ok {
		e = &keyEntry{key: key, fingerprint: fp, at: now}
		s.keys[key] = e
		s.pushFront(e)
		for len(s.keys) > s.max {
			s.remove(s.tail)
			s.evicted++
		}
		return keyNew, nil
	}
	s.unlink(e)
	s.pushFront(e)
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
		s.remove(e)
	}
}

func (s *keyStore) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.keys)
}

func (s *keyStore) evictedCount() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.evicted
}

func (s *keyStore) remove(e *keyEntry) {
	s.unlink(e)
	delete(s.keys, e.key)
}

func (s *keyStore) pushFront(e *keyEntry) {
	e.prev, e.next = nil, s.head
	if s.head != nil {
		s.head.prev = e
	}
	s.head = e
	if s.tail == nil {
		s.tail = e
	}
}

func (s *keyStore) unlink(e *keyEntry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		s.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		s.tail = e.prev
	}
	e.prev, e.next = nil, nil
}

// MaxLogicalIDLen bounds a Patience-Logical-Id: the live driver sends "TAG:N", a few dozen
// bytes; a longer one is answered 431 instead of being kept.
const MaxLogicalIDLen = 256

// DefaultMaxLogicalIDs caps the logical ids whose executions are counted at once; beyond it
// the least recently used is forgotten (a duplicate of a request that old is not counted).
const DefaultMaxLogicalIDs = 1_000_000

// idCounts counts executions per logical id, keeping at most max ids (LRU). Not locked: the
// server holds its mutex.
type idCounts struct {
	m    map[string]*idCount
	head *idCount // most recently used
	tail *idCount
	max  int
}

type idCount struct {
	id         string
	n          int64
	prev, next *idCount
}

func newIDCounts(max int) *idCounts {
	if max <= 0 {
		max = DefaultMaxLogicalIDs
	}
	return &idCounts{m: map[string]*idCount{}, max: max}
}

// add counts one execution of id and returns its count so far.
func (c *idCounts) add(id string) int64 {
	e, ok := c.m[id]
	if ok {
		c.unlink(e)
	} else {
		e = &idCount{id: id}
		c.m[id] = e
	}
	e.n++
	e.prev, e.next = nil, c.head
	if c.head != nil {
		c.head.prev = e
	}
	c.head = e
	if c.tail == nil {
		c.tail = e
	}
	for len(c.m) > c.max {
		t := c.tail
		c.unlink(t)
		delete(c.m, t.id)
	}
	return e.n
}

func (c *idCounts) len() int { return len(c.m) }

func (c *idCounts) unlink(e *idCount) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		c.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		c.tail = e.prev
	}
	e.prev, e.next = nil, nil
}
