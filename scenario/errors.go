package scenario

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is an input problem in a scenario or policy file: where it is and which field it is
// about. Every input problem the loader finds is one of these, so the command layer can map
// them to exit 2 and the user can jump to the line.
type Error struct {
	File string
	Line int // 1-based; 0 when the problem has no position (a missing file)
	Col  int
	// Field is the dotted path of the field, e.g. "policy.retry.max_attempts" or
	// "target.phases[1].faults[0].percent"; empty for a problem with the whole file.
	Field string
	Msg   string
}

// Error renders "FILE:LINE:COL: FIELD: MSG", leaving out the parts that are unknown.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	if e.Field != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Field)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// errAt builds an Error at a node.
func errAt(file string, n *yaml.Node, field, format string, a ...any) *Error {
	e := &Error{File: file, Field: field, Msg: fmt.Sprintf(format, a...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	return e
}
