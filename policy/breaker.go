package policy

import "time"

// Breaker state names returned by BreakerState.State.
const (
	BreakerClosed   = "closed"
	BreakerOpen     = "open"
	BreakerHalfOpen = "half-open"
)

// breakerBuckets is how many buckets the breaker's sliding window is cut into.
const breakerBuckets = 10

type breakerMode uint8

const (
	modeClosed breakerMode = iota
	modeOpen
	modeHalfOpen
)

// BreakerState is one client's circuit breaker (docs/design.md §5), a failure-rate breaker in the shape
// of resilience4j's CircuitBreaker and Polly's advanced circuit breaker:
//
//   - closed: every call is allowed; results go into a sliding window of Window, bucketed in
//     10 buckets of Window/10 (a bucket leaves the window whole; Window 0 = count everything
//     since the breaker last closed). It opens when the window holds at least MinRequests
//     results, at least one of them a failure, and failures/results ≥ FailureRate.
//   - open: every call is rejected until OpenFor has passed since it opened; then half-open.
//   - half-open: HalfOpen probes (at least 1) are admitted, everything else rejected. Any
//     failure re-opens it (for another OpenFor); once HalfOpen probes have succeeded it closes
//     with an empty window. With HalfOpen = 1 this is "a probe success closes, a failure
//     re-opens".
//
// A result is recorded against the state the breaker is in when the result arrives, as
// resilience4j does: results arriving while open are dropped, and a late failure of a call
// admitted while closed re-opens a half-open breaker. A probe that is admitted but never
// recorded — it hangs, its attempt was then refused by the bulkhead, or the run ended — would
// leave the breaker half-open and rejecting forever; so once OpenFor has passed since the last
// probe was admitted without every probe answering, a fresh set of probes is admitted (the
// role of resilience4j's maxWaitDurationInHalfOpenState). What counts as a failure:
// BreakerFailure.
// A nil *BreakerState is a missing breaker: it allows everything and records nothing.
// Time must not go backwards. Not safe for concurrent use.
type BreakerState struct {
	cfg      Breaker
	mode     breakerMode
	openedAt time.Duration
	probes   int // admitted since half-open
	probeOK  int // probe successes since half-open
	probeAt  time.Duration
	opens    int

	width    time.Duration // 0 = no expiry
	cur      int64
	results  [breakerBuckets]int32
	failures [breakerBuckets]int32
	sumRes   int64
	sumFail  int64
}

// NewBreakerState returns a closed breaker; nil config → nil (no breaker).
func NewBreakerState(b *Breaker) *BreakerState {
	if b == nil {
		return nil
	}
	s := new(BreakerState)
	s.Init(b)
	return s
}

// Init (re)sets s to a closed breaker of b (not nil), in place: a simulator keeps one
// breaker per client in a contiguous slice instead of one heap object each.
func (s *BreakerState) Init(b *Breaker) {
	*s = BreakerState{cfg: *b}
	if s.cfg.HalfOpen < 1 {
		s.cfg.HalfOpen = 1
	}
	if s.cfg.MinRequests < 1 {
		s.cfg.MinRequests = 1
	}
	if b.Window > 0 {
		s.width = max(b.Window/breakerBuckets, 1)
	}
}

// tick moves an open breaker whose OpenFor has passed to half-open, and re-arms a half-open
// breaker whose probes have all been admitted but not all answered within OpenFor of the last
// one.
func (s *BreakerState) tick(now time.Duration) {
	switch {
	case s.mode == modeOpen && now-s.openedAt >= s.cfg.OpenFor:
		s.mode = modeHalfOpen
		s.probes, s.probeOK = 0, 0
	case s.mode == modeHalfOpen && s.probes >= s.cfg.HalfOpen && now-s.probeAt >= s.cfg.OpenFor:
		s.probes, s.probeOK = 0, 0
	}
}

// Allow reports whether a call may go to the dependency now. In half-open it admits (and
// counts) a probe.
func (s *BreakerState) Allow(now time.Duration) bool {
	if s == nil {
		return true
	}
	s.tick(now)
	switch s.mode {
	case modeClosed:
		return true
	case modeHalfOpen:
		if s.probes < s.cfg.HalfOpen {
			s.probes++
			s.probeAt = now
			return true
		}
	}
	return false
}

// Record records the result of an allowed call; success = !BreakerFailure(outcome).
func (s *BreakerState) Record(now time.Duration, success bool) {
	if s == nil {
		return
	}
	s.tick(now)
	switch s.mode {
	case modeClosed:
		s.advance(now)
		k := s.cur % breakerBuckets
		s.results[k]++
		s.sumRes++
		if !success {
			s.failures[k]++
			s.sumFail++
		}
		if s.sumFail > 0 && s.sumRes >= int64(s.cfg.MinRequests) &&
			float64(s.sumFail) >= s.cfg.FailureRate*float64(s.sumRes)-1e-9 {
			s.open(now)
		}
	case modeHalfOpen:
		if !success {
			s.open(now)
			return
		}
		s.probeOK++
		if s.probeOK >= s.cfg.HalfOpen {
			s.mode = modeClosed
			s.resetWindow(now)
		}
	}
}

func (s *BreakerState) open(now time.Duration) {
	s.mode = modeOpen
	s.openedAt = now
	s.opens++
	s.resetWindow(now)
}

func (s *BreakerState) resetWindow(now time.Duration) {
	s.results, s.failures = [breakerBuckets]int32{}, [breakerBuckets]int32{}
	s.sumRes, s.sumFail = 0, 0
	if s.width > 0 {
		s.cur = int64(now / s.width)
	}
}

// advance slides the window so the bucket of now is current.
func (s *BreakerState) advance(now time.Duration) {
	if s.width == 0 {
		return
	}
	idx := int64(now / s.width)
	if idx <= s.cur {
		return
	}
	if idx-s.cur >= breakerBuckets {
		s.results, s.failures = [breakerBuckets]int32{}, [breakerBuckets]int32{}
		s.sumRes, s.sumFail = 0, 0
	} else {
		for i := s.cur + 1; i <= idx; i++ {
			k := i % breakerBuckets
			s.sumRes -= int64(s.results[k])
			s.sumFail -= int64(s.failures[k])
			s.results[k], s.failures[k] = 0, 0
		}
	}
	s.cur = idx
}

// State is "closed", "open" or "half-open" at now (nil: "closed").
func (s *BreakerState) State(now time.Duration) string {
	if s == nil {
		return BreakerClosed
	}
	s.tick(now)
	switch s.mode {
	case modeOpen:
		return BreakerOpen
	case modeHalfOpen:
		return BreakerHalfOpen
	}
	return BreakerClosed
}

// Opens counts how many times the breaker has opened (re-opening from half-open included).
func (s *BreakerState) Opens() int {
	if s == nil {
		return 0
	}
	return s.opens
}

// BulkheadState counts concurrent calls against Bulkhead.MaxConcurrent (the bulkhead pattern:
// Nygard, "Release It!", ch. 5; resilience4j SemaphoreBulkhead without a wait). A nil
// *BulkheadState, or MaxConcurrent ≤ 0, admits everything. Not safe for concurrent use.
type BulkheadState struct {
	max      int
	inUse    int
	rejected int64
}

// NewBulkheadState returns an empty bulkhead; nil config → nil (no bulkhead).
func NewBulkheadState(b *Bulkhead) *BulkheadState {
	if b == nil {
		return nil
	}
	s := new(BulkheadState)
	s.Init(b)
	return s
}

// Init (re)sets s to an empty bulkhead of b (not nil), in place (see BreakerState.Init).
func (s *BulkheadState) Init(b *Bulkhead) {
	*s = BulkheadState{max: b.MaxConcurrent}
}

// TryAcquire takes a slot if one is free; each true must be paired with one Release.
func (s *BulkheadState) TryAcquire() bool {
	if s == nil {
		return true
	}
	if s.max > 0 && s.inUse >= s.max {
		s.rejected++
		return false
	}
	s.inUse++
	return true
}

// Release frees a slot taken by TryAcquire. Releasing more than was acquired panics: it is a
// bookkeeping bug in the caller that would silently widen the bulkhead.
func (s *BulkheadState) Release() {
	if s == nil {
		return
	}
	if s.inUse == 0 {
		panic("policy: BulkheadState.Release without TryAcquire")
	}
	s.inUse--
}

// InUse is the number of slots taken.
func (s *BulkheadState) InUse() int {
	if s == nil {
		return 0
	}
	return s.inUse
}

// Rejected counts TryAcquire calls refused so far.
func (s *BulkheadState) Rejected() int64 {
	if s == nil {
		return 0
	}
	return s.rejected
}
