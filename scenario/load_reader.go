package scenario

import (
	"errors"
	"io"

	"github.com/patience-dev/patience/internal/input"
)

// StdinName names a scenario read from standard input in every error: (stdin):LINE:COL.
const StdinName = "(stdin)"

// OpenStdin is OpenFor where "-" reads the scenario from stdin (`… | patience replay -`); with
// a nil stdin, "-" is a file or bundled name like any other.
func OpenStdin(nameOrPath string, purpose Purpose, stdin io.Reader) (*Scenario, error) {
	if nameOrPath == input.Stdin && stdin != nil {
		return OpenReader(stdin, StdinName, purpose)
	}
	return OpenFor(nameOrPath, purpose)
}

// OpenReader reads a scenario from r, bounded like a file (input.MaxScenario) and stopped by
// the process interrupt while it waits (input.Interrupt), and parses it for purpose under
// name. A profile: path in it is relative to the working directory.
func OpenReader(r io.Reader, name string, purpose Purpose) (*Scenario, error) {
	data, err := input.ReadContext(input.Interrupt(), r, name, input.MaxScenario)
	if se := (*input.StoppedError)(nil); errors.As(err, &se) {
		return nil, se
	}
	if err != nil {
		return nil, &Error{File: name, Msg: "cannot read: " + readErrMsg(err)}
	}
	return ParseFor(data, name, purpose)
}
