package advise

import (
	"context"
	"errors"

	inputpkg "github.com/patience-dev/patience/internal/input"
)

// readProfile reads a saved profile with the cap probe --merge and replay use
// (input.MaxProfile, 16 MiB, as docs/commands.md says): --format profile read up to 256 MiB, and cut
// a longer one short without a word. The cap applies to the decompressed bytes of a .gz.
func readProfile(ctx context.Context, in *input) ([]byte, error) {
	b, err := inputpkg.ReadContext(ctx, in.br, in.name, inputpkg.MaxProfile)
	if tl := new(inputpkg.TooLargeError); errors.As(err, &tl) {
		return nil, &InputError{File: in.name, Err: errors.New(tl.Reason() + ", the most a saved profile may be")}
	}
	if err != nil {
		if se := new(inputpkg.StoppedError); errors.As(err, &se) {
			return nil, err
		}
		return nil, &InputError{File: in.name, Err: err}
	}
	return b, nil
}
