package advise

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"time"
)

// Lines wrapped by the container runtime, as a Kubernetes node stores them under
// /var/log/pods (and as `docker logs` keeps them): advise unwraps them, joins the lines the
// runtime split, and reads the inner lines as any other input — the inner format is
// detected (or given with --format) from the unwrapped lines.
//
//   - Docker json-file (moby daemon/logger/jsonfilelog, marshalMessage): one JSON object per
//     line, {"log":"…\n","stream":"stdout","time":"…"}. A message longer than the daemon's
//     buffer (16 KiB) is written in parts; only the last part's log ends in "\n"
//     (marshalMessage appends it when PLogMetaData is nil or Last). Shippers that re-write
//     the file (Filebeat) put the line in "message" instead of "log": both are read.
//   - CRI (kubernetes pkg/kubelet/kuberuntime/logs/logs.go, parseCRILog): "<RFC 3339 nano
//     time> <stdout|stderr> <tag> <line>", the tag's first part P for a partial line, F for
//     the last (full) one; the parts of one line are consecutive on their stream.
//
// Both streams are read (Caddy logs to stderr by default, Envoy to stdout). Every outer line
// gives one inner line, so line numbers stay the file's: a joined line is numbered by its
// last part, and its other parts are blank lines. An outer line that is not the wrapper
// passes through as it is.

// containerKind is the runtime's wrapping of a file's lines.
type containerKind int

const (
	containerNone containerKind = iota
	containerDocker
	containerCRI
)

func (k containerKind) String() string {
	switch k {
	case containerDocker:
		return "Docker json-file"
	case containerCRI:
		return "CRI (containerd, CRI-O)"
	}
	return "none"
}

// dockerEntry is one json-file line (moby's jsonlog.JSONLogs: log, stream, time).
type dockerEntry struct {
	Log     *string `json:"log"`
	Message *string `json:"message"`
	Stream  string  `json:"stream"`
	Time    string  `json:"time"`
}

// parseDockerLine reads one json-file line: the stream, the content, and whether the content
// is complete (ends in "\n", which is dropped).
func parseDockerLine(l []byte) (stream string, content []byte, complete bool, ok bool) {
	if len(l) == 0 || l[0] != '{' || !bytes.Contains(l, []byte(`"stream"`)) {
		return "", nil, false, false
	}
	var e dockerEntry
	if json.Unmarshal(l, &e) != nil || (e.Stream != "stdout" && e.Stream != "stderr") {
		return "", nil, false, false
	}
	s := e.Log
	if s == nil {
		s = e.Message
	}
	if s == nil {
		return "", nil, false, false
	}
	if _, err := time.Parse(time.RFC3339Nano, e.Time); err != nil && e.Time != "" {
		return "", nil, false, false
	}
	c := []byte(*s)
	complete = bytes.HasSuffix(c, []byte{'\n'})
	c = bytes.TrimSuffix(c, []byte{'\n'})
	c = bytes.TrimSuffix(c, []byte{'\r'})
	return e.Stream, c, complete, true
}

// parseCRILine reads one CRI line as parseCRILog does: the stream, the content, and whether
// it is the last part of its line (tag F, or any tag but P).
func parseCRILine(l []byte) (stream string, content []byte, complete bool, ok bool) {
	ts, rest, found := bytes.Cut(l, []byte{' '})
	if !found {
		return "", nil, false, false
	}
	if _, err := time.Parse(time.RFC3339Nano, string(ts)); err != nil {
		return "", nil, false, false
	}
	st, rest, found := bytes.Cut(rest, []byte{' '})
	if !found || (string(st) != "stdout" && string(st) != "stderr") {
		return "", nil, false, false
	}
	tag, rest, found := bytes.Cut(rest, []byte{' '})
	if !found {
		if len(tag) == 0 {
			return "", nil, false, false
		}
		rest = nil // "… stdout F" with an empty line
	}
	first, _, _ := bytes.Cut(tag, []byte{':'}) // runtimeapi.LogTagDelimiter
	return string(st), rest, string(first) != "P", true
}

// detectContainer says whether most of the first lines of head are wrapped by a runtime.
func detectContainer(head []byte) containerKind {
	lines := sampleLines(head, 50)
	var docker, cri int
	for _, l := range lines {
		if _, _, _, ok := parseDockerLine(l); ok {
			docker++
		} else if _, _, _, ok := parseCRILine(l); ok {
			cri++
		}
	}
	switch {
	case len(lines) == 0:
		return containerNone
	case 2*docker > len(lines):
		return containerDocker
	case 2*cri > len(lines):
		return containerCRI
	}
	return containerNone
}

// unwrapReader gives the inner lines of a runtime-wrapped input.
type unwrapReader struct {
	src     *bufio.Reader
	kind    containerKind
	out     []byte // unwrapped bytes not yet read
	line    []byte
	partial map[string][]byte
	err     error
}

func newUnwrapReader(src *bufio.Reader, kind containerKind) *unwrapReader {
	return &unwrapReader{src: src, kind: kind, partial: map[string][]byte{}}
}

// maxJoined bounds a line joined from parts (the read's own maximum line length).
const maxJoined = maxLine

func (u *unwrapReader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		u.next()
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

// next unwraps one outer line into out (or ends the input).
func (u *unwrapReader) next() {
	u.line = u.line[:0]
	for {
		chunk, err := u.src.ReadSlice('\n')
		u.line = append(u.line, chunk...)
		if err == bufio.ErrBufferFull {
			if len(u.line) > maxLine {
				u.err = errors.New("line longer than 64 MiB")
				return
			}
			continue
		}
		if err != nil {
			if len(u.line) == 0 {
				u.flush()
				u.err = err
				if err != io.EOF {
					return
				}
				return
			}
		}
		break
	}
	l := bytes.TrimSuffix(bytes.TrimSuffix(u.line, []byte{'\n'}), []byte{'\r'})
	var stream string
	var content []byte
	var complete, ok bool
	if u.kind == containerDocker {
		stream, content, complete, ok = parseDockerLine(l)
	} else {
		stream, content, complete, ok = parseCRILine(l)
	}
	out := u.out[:0]
	switch {
	case !ok:
		out = append(out, l...)
	case !complete:
		if len(u.partial[stream])+len(content) > maxJoined {
			u.err = errors.New("a line joined from partial parts is longer than 64 MiB")
			return
		}
		u.partial[stream] = append(u.partial[stream], content...)
	default:
		if pre := u.partial[stream]; len(pre) > 0 {
			out = append(out, pre...)
			u.partial[stream] = pre[:0]
		}
		out = append(out, content...)
	}
	// One inner line per outer line; the content of a runtime line holds no newline of its
	// own (the runtime split on them), so a stray one is made a space.
	for i, c := range out {
		if c == '\n' {
			out[i] = ' '
		}
	}
	u.out = append(out, '\n')
}

// flush emits the parts of lines whose last part never came (the file ended mid-line).
func (u *unwrapReader) flush() {
	for _, s := range []string{"stdout", "stderr"} {
		if pre := u.partial[s]; len(pre) > 0 {
			u.out = append(u.out, pre...)
			u.out = append(u.out, '\n')
			u.partial[s] = nil
		}
	}
}

// unwrapInput wraps in so that its lines are the runtime's inner lines.
func unwrapInput(in *input, kind containerKind) *input {
	return &input{name: in.name, br: bufio.NewReaderSize(newUnwrapReader(in.br, kind), 256<<10), c: in}
}
