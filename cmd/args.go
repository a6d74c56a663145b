package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// argsError turns cobra's "accepts 1 arg(s), received 0" into what a newcomer needs: what is
// missing or extra, named as the usage line names it, then the usage line and an example
// from the command's help.
func argsError(c *cobra.Command, args []string, err error) error {
	wants := strings.TrimSpace(strings.TrimPrefix(c.Use, c.Name()))
	what := wants
	if w, ok := argsWanted[c.CommandPath()]; ok {
		what = w
	}
	var msg string
	switch {
	case !strings.Contains(err.Error(), "arg(s)"):
		msg = err.Error() // a command's own words (probe --merge with no profile)
	case len(args) == 0 && wants != "":
		msg = fmt.Sprintf("%s needs %s", c.CommandPath(), what)
	case wants == "":
		msg = fmt.Sprintf("%s takes no argument, got %s", c.CommandPath(), quoteArgs(args))
	case strings.HasPrefix(wants, "["):
		msg = fmt.Sprintf("%s takes at most one argument (%s), got %d: %s", c.CommandPath(), strings.Trim(wants, "[]"), len(args), quoteArgs(args))
	default:
		msg = fmt.Sprintf("%s takes %s, got %d arguments: %s", c.CommandPath(), what, len(args), quoteArgs(args))
	}
	msg += "\nusage: " + strings.Join(strings.Fields(c.UseLine()), " ")
	if ex := firstExample(c); ex != "" {
		msg += "\nexample: " + ex
	}
	return fmt.Errorf("%s\n(%s --help for more)", msg, c.CommandPath())
}

// argsWanted says in words what a command's required arguments are, where its usage line's
// placeholder alone would read as jargon.
var argsWanted = map[string]string{
	"patience probe":              "the URL to measure (or --merge and saved profiles)",
	"patience advise":             "the files to read: logs, HAR or traces (- is standard input)",
	"patience man":                "the directory to write the man pages into",
	"patience scenarios show":     "a bundled scenario's name (patience scenarios lists them)",
	"patience scenarios validate": "the scenario files to validate",
}

// quoteArgs lists arguments as given, quoted: the first three, then how many more (an
// unquoted glob can expand to thousands).
func quoteArgs(args []string) string {
	var q []string
	for i, a := range args {
		if i == 3 {
			q = append(q, fmt.Sprintf("and %d more", len(args)-i))
			break
		}
		q = append(q, fmt.Sprintf("%q", a))
	}
	return strings.Join(q, " ")
}

// firstExample is the first line of the command's Example, without its comment.
func firstExample(c *cobra.Command) string {
	line, _, _ := strings.Cut(strings.TrimSpace(c.Example), "\n")
	line, _, _ = strings.Cut(line, "  #")
	return strings.TrimSpace(line)
}
