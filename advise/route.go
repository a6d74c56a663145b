package advise

import "strings"

// RouteTemplate turns a request path into its route: segments that are ids — numbers, UUIDs,
// hex hashes, long tokens mixing letters and digits — become {id}, so /users/42/orders and
// /users/7/orders are one endpoint. The query string is dropped.
func RouteTemplate(path string) string { return string(appendRoute(nil, path)) }

// appendRoute appends RouteTemplate(path) to dst.
func appendRoute(dst []byte, path string) []byte {
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	if path == "" {
		return append(dst, '/')
	}
	for {
		seg, rest, more := strings.Cut(path, "/")
		if isID(seg) {
			dst = append(dst, "{id}"...)
		} else {
			dst = append(dst, seg...)
		}
		if !more {
			return dst
		}
		dst = append(dst, '/')
		path = rest
	}
}

// isID says whether a path segment is an identifier rather than a word of the API.
func isID(s string) bool {
	if s == "" {
		return false
	}
	c := countSegChars(s)
	n := len(s)
	switch {
	case c.digits == n: // 42
		return true
	case n == 36 && strings.Count(s, "-") == 4 && c.hex == 32: // UUID
		return true
	case c.hex == n && n >= 16 && c.digits > 0: // sha1, md5, object ids
		return true
	case n >= 12 && c.digits > 0 && c.letters > 0 && c.digits+c.letters+c.other == n && c.other <= 2: // tokens, prefixed ids
		return true
	case c.digits > 0 && c.other > 0 && c.digits+c.other == n: // 2024-05-01, 1.2.3
		return true
	case strings.Contains(s, "@"): // e-mail addresses
		return true
	}
	return false
}

// segChars counts a path segment's characters by class: digits, letters, hex digits (0-9,
// a-f, A-F) and the others (a non-ASCII character counts once).
type segChars struct{ digits, letters, hex, other int }

func countSegChars(s string) segChars {
	var n segChars
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			n.digits++
			n.hex++
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
			n.letters++
			n.hex++
		case c >= 'g' && c <= 'z', c >= 'G' && c <= 'Z':
			n.letters++
		default:
			n.other++
		}
	}
	return n
}
