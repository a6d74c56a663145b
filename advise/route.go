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
	var digits, letters, hex, other int
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
			hex++
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
			letters++
			hex++
		case c >= 'g' && c <= 'z', c >= 'G' && c <= 'Z':
			letters++
		default:
			other++
		}
	}
	n := len(s)
	switch {
	case digits == n: // 42
		return true
	case n == 36 && strings.Count(s, "-") == 4 && hex == 32: // UUID
		return true
	case hex == n && n >= 16 && digits > 0: // sha1, md5, object ids
		return true
	case n >= 12 && digits > 0 && letters > 0 && digits+letters+other == n && other <= 2: // tokens, prefixed ids
		return true
	case digits > 0 && other > 0 && digits+other == n: // 2024-05-01, 1.2.3
		return true
	case strings.Contains(s, "@"): // e-mail addresses
		return true
	}
	return false
}
