package scenario

import (
	"io"
	"slices"
	"strings"

	"github.com/patience-dev/patience/internal/input"
)

// ListSchema is the value of List.Schema.
const ListSchema = "patience/scenarios/v1"

// List is the result of `patience scenarios`: the bundled scenarios, in name order.
type List struct {
	Schema    string `json:"schema"` // ListSchema
	Scenarios []Info `json:"scenarios"`
}

// BundledList is the result of `patience scenarios`: every bundled scenario described, those
// replay runs (Bundled) and those only serve plays (BundledServe), in name order. A bundled
// file that does not load is a bug in the binary; its *Error is returned.
func BundledList() (List, error) {
	infos, err := Bundled()
	if err != nil {
		return List{}, err
	}
	serve, err := BundledServe()
	if err != nil {
		return List{}, err
	}
	infos = append(infos, serve...)
	slices.SortFunc(infos, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return List{Schema: ListSchema, Scenarios: infos}, nil
}

// ValidationSchema is the value of Validation.Schema.
const ValidationSchema = "patience/scenarios-validate/v1"

// Validation is the result of `patience scenarios validate FILE...`: the files that loaded.
type Validation struct {
	Schema string          `json:"schema"` // ValidationSchema
	Files  []ValidatedFile `json:"files"`
}

// ValidatedFile is one scenario file that loaded.
type ValidatedFile struct {
	File     string   `json:"file"`
	Name     string   `json:"name"`
	Policies []string `json:"policies"`
}

// Validate loads every file strictly, as the command purpose names would (OpenFor), without
// running anything: the files that load are listed in the Validation, in the order given,
// and the first problem of each file that does not is returned, in the same order.
func Validate(files []string, purpose Purpose) (Validation, []error) {
	return ValidateStdin(files, purpose, nil)
}

// ValidateStdin is Validate where "-" reads a scenario from stdin (OpenStdin), reported as
// StdinName.
func ValidateStdin(files []string, purpose Purpose, stdin io.Reader) (Validation, []error) {
	res := Validation{Schema: ValidationSchema, Files: []ValidatedFile{}}
	var problems []error
	for _, file := range files {
		sc, err := OpenStdin(file, purpose, stdin)
		if file == input.Stdin && stdin != nil {
			file, stdin = StdinName, nil // read once: a second "-" is a name
		}
		if err != nil {
			problems = append(problems, err)
			continue
		}
		v := ValidatedFile{File: file, Name: sc.Name, Policies: []string{}}
		for _, p := range sc.Policies {
			v.Policies = append(v.Policies, p.Name)
		}
		res.Files = append(res.Files, v)
	}
	return res, problems
}
