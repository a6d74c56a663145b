package source

import (
	"fmt"
	"math"
	"time"
)

// Library defaults, as data (docs/formats.md "Source code (Python)" cites each upstream):
//   - httpx: DEFAULT_TIMEOUT_CONFIG = Timeout(timeout=5.0) — connect, read, write and pool
//     5 s each, no total (httpx/_config.py).
//   - aiohttp: DEFAULT_TIMEOUT = ClientTimeout(total=5 * 60) (aiohttp/client.py; 3.10 adds
//     sock_connect=30, which the reader does not assume: the lower version is the looser).
//   - requests: no timeout at all (adapters.py HTTPAdapter.send(timeout=None)).
//   - urllib3: Timeout.DEFAULT_TIMEOUT is the socket default, none unless the program calls
//     socket.setdefaulttimeout (urllib3/util/timeout.py).
var (
	httpxDefault        = 5 * time.Second
	aiohttpDefaultTotal = 300 * time.Second
)

// Notes on what a number means where it is not what its name suggests.
const (
	noteRequestsNoTotal = "requests has no total timeout: read bounds each wait for data, so a body that drips under it never ends"
	noteHTTPXNoTotal    = "httpx has no total timeout: connect, read, write and pool each bound one phase, so a body that drips under read never ends"
	noteURLLib3NoTotal  = "urllib3 has no bound on the whole call: Timeout(total=) caps connect plus each read, and a body that drips under it never ends"
)

// secs is a bound of n seconds with origin o.
func secs(n float64, o Origin) Bound {
	return Bound{D: time.Duration(n * float64(time.Second)), Origin: o}
}

// msNote warns when a seconds parameter holds what looks like milliseconds (≥ 1000): it is
// read as the library reads it.
func msNote(n float64, param, lib string) []string {
	if n < 1000 {
		return nil
	}
	return []string{fmt.Sprintf("%s=%g is read in seconds, as %s reads it: %s — milliseconds given to a seconds parameter?", param, n, lib, time.Duration(n*float64(time.Second)))}
}

// number is a timeout value in seconds: a bound, none for None, unresolved otherwise.
func number(v pyVal, param, lib string) (Bound, []string) {
	switch v.kind {
	case pvNum:
		if v.num <= 0 || math.IsInf(v.num, 0) || math.IsNaN(v.num) {
			return unresolvedBound, []string{fmt.Sprintf("%s=%g is not a timeout %s accepts", param, v.num, lib)}
		}
		return secs(v.num, v.origin), append(append([]string(nil), v.notes...), msNote(v.num, param, lib)...)
	case pvNone:
		return Bound{Origin: OriginNone}, v.notes
	}
	why := v.why
	if why == "" {
		why = "computed at run time"
	}
	return unresolvedBound, append(append([]string(nil), v.notes...), param+": "+why)
}

// requestsTimeout reads requests' timeout=: a number for connect and read, a (connect, read)
// tuple, None, or a urllib3 Timeout.
func requestsTimeout(v pyVal) pyBounds {
	if v.kind == pvTuple && len(v.items) == 2 {
		c, n1 := number(withOrigin(v.items[0], v.origin), "timeout[0]", libRequests)
		r, n2 := number(withOrigin(v.items[1], v.origin), "timeout[1]", libRequests)
		return pyBounds{connect: c, read: r, total: noBound, notes: append(append(v.notes, n1...), n2...)}
	}
	if v.kind == pvCall && v.call.callee == "urllib3.Timeout" {
		return urllib3Timeout(v)
	}
	b, notes := number(v, "timeout", libRequests)
	return pyBounds{connect: b, read: b, total: noBound, notes: notes}
}

func withOrigin(v pyVal, o Origin) pyVal {
	if v.origin == "" || o == OriginClient {
		v.origin = o
	}
	return v
}

// requestsBounds: the call's timeout=, else a Session subclass's or a mounted adapter's
// default (a wrapper in the package), else none — requests' own default.
func (s pySite) requestsBounds() pyBounds {
	var b pyBounds
	if v, ok := s.timeoutArg(); ok {
		b = requestsTimeout(v)
	} else if v, ok := s.wrapperTimeout(); ok {
		b = requestsTimeout(v)
	} else if s.fromCaller() {
		b = pyBounds{connect: unresolvedBound, read: unresolvedBound, total: noBound, notes: []string{"the session is the caller's: an adapter or subclass there may set a timeout"}}
	} else {
		b = pyBounds{connect: noBound, read: noBound, total: noBound}
	}
	if b.read.known() {
		b.notes = append(b.notes, noteRequestsNoTotal)
	}
	return b
}

// httpxTimeout reads httpx's timeout=: a number for every phase, None, or
// httpx.Timeout(default, connect=, read=, write=, pool=).
func httpxTimeout(v pyVal) pyBounds {
	if v.kind == pvCall && v.call.callee == "httpx.Timeout" {
		args, env := v.call.args, v.call.env
		all := pyVal{kind: pvNone}
		if t := args.arg("timeout", 0); t != nil {
			all = withOrigin(env.eval(t, 0), v.origin)
		}
		phase := func(name string) (Bound, []string) {
			if t, ok := args.kw[name]; ok {
				return number(withOrigin(env.eval(t, 0), v.origin), name, libHTTPX)
			}
			return number(all, name, libHTTPX)
		}
		c, n1 := phase("connect")
		r, n2 := phase("read")
		return pyBounds{connect: c, read: r, total: noBound, notes: append(n1, n2...)}
	}
	b, notes := number(v, "timeout", libHTTPX)
	return pyBounds{connect: b, read: b, total: noBound, notes: notes}
}

// httpxBounds: the call's timeout=, else the client's, else 5 s for every phase.
func (s pySite) httpxBounds() pyBounds {
	var b pyBounds
	switch v, ok := s.timeoutArg(); {
	case ok:
		b = httpxTimeout(v)
	case s.fromCaller():
		b = pyBounds{connect: unresolvedBound, read: unresolvedBound, total: noBound, notes: []string{"the client is the caller's: its timeout is set there"}}
	default:
		if v, ok := s.ctorArg("timeout", -1); ok {
			b = httpxTimeout(v)
		} else {
			d := Bound{D: httpxDefault, Origin: OriginDefault}
			b = pyBounds{connect: d, read: d, total: noBound}
		}
	}
	if b.read.known() {
		b.notes = append(b.notes, noteHTTPXNoTotal)
	}
	return b
}

// aiohttpTimeout reads aiohttp's timeout=: ClientTimeout(total=, connect=, sock_connect=,
// sock_read=) — a field left out is no bound — or a number, which is the total.
func aiohttpTimeout(v pyVal) pyBounds {
	if v.kind == pvCall && v.call.callee == "aiohttp.ClientTimeout" {
		args, env := v.call.args, v.call.env
		field := func(name string, pos int) (Bound, []string) {
			if t := args.arg(name, pos); t != nil {
				return number(withOrigin(env.eval(t, 0), v.origin), name, libAIOHTTP)
			}
			return noBound, nil
		}
		total, n1 := field("total", 0)
		conn, n2 := field("connect", 1)
		sockConn, n3 := field("sock_connect", 3)
		read, n4 := field("sock_read", 2)
		notes := append(append(append(n1, n2...), n3...), n4...)
		return pyBounds{connect: tighter(conn, sockConn), read: read, total: total, notes: notes}
	}
	if v.kind == pvNum || v.kind == pvNone {
		t, notes := number(v, "timeout", libAIOHTTP)
		return pyBounds{connect: noBound, read: noBound, total: t, notes: notes}
	}
	return unresolvedAll("timeout: " + orWhy(v))
}

func orWhy(v pyVal) string {
	if v.why != "" {
		return v.why
	}
	return "not a ClientTimeout the reader reads"
}

// aiohttpBounds: the call's timeout= (it replaces the session's whole ClientTimeout), else
// the session's, else DEFAULT_TIMEOUT (total 300 s).
func (s pySite) aiohttpBounds() pyBounds {
	if v, ok := s.timeoutArg(); ok {
		return aiohttpTimeout(v)
	}
	if s.fromCaller() {
		return unresolvedAll("the session is the caller's: its ClientTimeout is set there")
	}
	if v, ok := s.ctorArg("timeout", -1); ok {
		return aiohttpTimeout(v)
	}
	return pyBounds{connect: noBound, read: noBound, total: Bound{D: aiohttpDefaultTotal, Origin: OriginDefault}}
}

// urllib3Timeout reads urllib3.Timeout(total=, connect=, read=): total caps connect and each
// read; it is no bound on the whole call.
func urllib3Timeout(v pyVal) pyBounds {
	args, env := v.call.args, v.call.env
	field := func(name string, pos int) (Bound, []string) {
		if t := args.arg(name, pos); t != nil {
			return number(withOrigin(env.eval(t, 0), v.origin), name, libURLLib3)
		}
		return noBound, nil
	}
	total, n1 := field("total", 0)
	conn, n2 := field("connect", 1)
	read, n3 := field("read", 2)
	return pyBounds{connect: tighter(conn, total), read: tighter(read, total), total: noBound, notes: append(append(n1, n2...), n3...)}
}

// urllib3Value reads urllib3's timeout=: a number for connect and read, None, or a Timeout.
func urllib3Value(v pyVal) pyBounds {
	if v.kind == pvCall && v.call.callee == "urllib3.Timeout" {
		return urllib3Timeout(v)
	}
	b, notes := number(v, "timeout", libURLLib3)
	return pyBounds{connect: b, read: b, total: noBound, notes: notes}
}

// urllib3Bounds: the call's timeout=, else the PoolManager's, else none (the socket default).
func (s pySite) urllib3Bounds() pyBounds {
	var b pyBounds
	switch v, ok := s.timeoutArg(); {
	case ok:
		b = urllib3Value(v)
	case s.fromCaller():
		b = pyBounds{connect: unresolvedBound, read: unresolvedBound, total: noBound, notes: []string{"the pool manager is the caller's: its timeout is set there"}}
	default:
		if v, ok := s.ctorArg("timeout", -1); ok {
			b = urllib3Value(v)
		} else {
			b = pyBounds{connect: noBound, read: noBound, total: noBound}
		}
	}
	if b.read.known() {
		b.notes = append(b.notes, noteURLLib3NoTotal)
	}
	return b
}
