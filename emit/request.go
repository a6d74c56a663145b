package emit

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/patience-dev/patience/profile"
)

// Request is one `--emit TARGET[=PATH]`: a target, and the file its text is written to
// ("" when the text goes only into the report).
type Request struct {
	Target Target
	Path   string
}

// ParseRequest reads one --emit value: "TARGET" or "TARGET=PATH".
func ParseRequest(s string) (Request, error) {
	name, path, hasPath := strings.Cut(s, "=")
	t, err := ParseTarget(name)
	if err != nil {
		return Request{}, err
	}
	if hasPath && strings.TrimSpace(path) == "" {
		return Request{}, fmt.Errorf("%q: want TARGET or TARGET=PATH, the path is empty", s)
	}
	return Request{Target: t, Path: path}, nil
}

// ParseRequests reads every --emit value: a target named twice, or two targets written to
// the same file, is an error.
func ParseRequests(values []string) ([]Request, error) {
	out := make([]Request, 0, len(values))
	targets := map[Target]bool{}
	paths := map[string]Target{}
	for _, v := range values {
		r, err := ParseRequest(v)
		if err != nil {
			return nil, err
		}
		if targets[r.Target] {
			return nil, fmt.Errorf("%q: %s is named twice", v, r.Target)
		}
		targets[r.Target] = true
		if r.Path != "" {
			clean := filepath.Clean(r.Path)
			if other, dup := paths[clean]; dup {
				return nil, fmt.Errorf("%q: %s is also where %s is written", v, r.Path, other)
			}
			paths[clean] = r.Target
		}
		out = append(out, r)
	}
	return out, nil
}

// Source is the call a profile measured, as the emitted texts name it: its URL, method and
// the dependency's name. A profile from advise may know only a host or a route: base (a
// URL the user gave, --emit-url) completes it; without one, Note says what is missing and
// URL is a placeholder that cannot resolve (.invalid, RFC 2606), never a guess.
type Source struct {
	URL, Method, Name string
	// Note is "" when the URL is the profile's own, else what the emitted texts must say.
	Note string
}

// placeholderHost is the host of a URL the profile does not hold.
const placeholderHost = "api.example.invalid"

// SourceOf is the call behind a profile's target: probe's URL as it is; advise's host or
// route joined to base; a placeholder with a note when neither gives a whole URL.
func SourceOf(t profile.Target, base string) Source {
	s := Source{Method: t.Method}
	if s.Method == "" {
		s.Method = "GET"
	}
	switch u, err := url.Parse(t.URL); {
	case err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "":
		s.URL = t.URL
	case base != "":
		s.URL = joinBase(base, t.URL)
	case hostLike(t.URL):
		s.URL = "https://" + t.URL + "/"
		s.Note = "the source names the host, not the scheme or path: https and / assumed (--emit-url sets the URL)"
	default:
		s.URL = "https://" + placeholderHost + pathOf(t.URL)
		s.Note = "the source does not name the URL (" + t.URL + "): " + placeholderHost + " stands for it (--emit-url sets it)"
	}
	s.Name = NameFromURL(s.URL)
	return s
}

// joinBase puts a route ("/orders/{id}") under base; a host or nothing keeps base as it is.
func joinBase(base, target string) string {
	if !strings.HasPrefix(target, "/") {
		return base
	}
	return strings.TrimSuffix(base, "/") + target
}

func pathOf(target string) string {
	if strings.HasPrefix(target, "/") {
		return target
	}
	return "/"
}

// hostLike says whether s is a bare host[:port] (advise's single host), not a placeholder
// such as "(several hosts)".
func hostLike(s string) bool {
	if s == "" || strings.ContainsAny(s, "()/ ") {
		return false
	}
	u, err := url.Parse("//" + s)
	return err == nil && u.Host == s
}

// NameFromURL is a DNS-label-safe name for configuration files from the URL's host: its
// first label ("payments" for payments.example.com), "api" when none is usable.
func NameFromURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "api"
	}
	host := u.Hostname()
	label, _, _ := strings.Cut(host, ".")
	var b strings.Builder
	for _, r := range strings.ToLower(label) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '-' || r == '_':
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" || name == "localhost" || (name[0] >= '0' && name[0] <= '9') {
		return "api"
	}
	return name
}

// ForProfile writes every request's target for a profile's recommendation (group labels
// them for an advise --by group). A target that cannot be written (no timeout was derived)
// is left out and its error returned beside the others', so one refusal loses nothing else.
func ForProfile(p *profile.Profile, reqs []Request, base, group string) ([]profile.Emission, []error) {
	if p == nil {
		return nil, nil
	}
	command := "patience probe"
	if p.Source != nil {
		command = "patience advise"
	}
	return ForRecommendation(p.Target, p.Recommendation, command, "", reqs, base, group)
}

// ForRecommendation is ForProfile for a recommendation made elsewhere (check --init's
// starter), for the call t; command names what made it (Input.Command), name the dependency
// in configuration files ("" takes it from the URL's host).
func ForRecommendation(t profile.Target, rec profile.Recommendation, command, name string, reqs []Request, base, group string) ([]profile.Emission, []error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	src := SourceOf(t, base)
	if name != "" {
		src.Name = name
	}
	in := Input{URL: src.URL, Method: src.Method, Name: src.Name, Rec: rec, Command: command}
	var out []profile.Emission
	var errs []error
	for _, r := range reqs {
		e, err := Emit(r.Target, in)
		if err != nil {
			if group != "" {
				err = fmt.Errorf("%s: %w", group, err)
			}
			errs = append(errs, err)
			continue
		}
		if src.Note != "" {
			e.Missing = append([]string{src.Note}, e.Missing...)
		}
		e.Group, e.Path = group, r.Path
		out = append(out, e)
	}
	return out, errs
}
