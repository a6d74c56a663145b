package nginxconf

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Bounds of one Load: includes nested at most this deep, at most this many files and bytes
// read through them. nginx has none; a configuration is user input.
const (
	DefaultMaxDepth = 16
	DefaultMaxFiles = 1000
	DefaultMaxBytes = 16 << 20
)

// Loader reads a configuration and expands its include directives in place, as
// ngx_conf_include does: the name is read relative to the configuration prefix (nginx's
// conf prefix is the directory of the main file, not of the including one); a name with
// "*", "?" or "[" is a mask whose matches are read in sorted order, and a mask that matches
// nothing adds nothing; a plain name that does not exist is an error. A cycle, which nginx
// would follow until it runs out of files, is refused.
type Loader struct {
	// Prefix is the directory relative includes are read from.
	Prefix string
	// ReadFile reads one included file, bounded by the caller.
	ReadFile func(path string) ([]byte, error)
	// Rebase returns the path to read for an absolute include ("" = as written).
	Rebase func(path string) string
	// Absent says whether a plain include that does not exist may be left out, and why.
	Absent func(path string) (why string, ok bool)
	// MaxDepth, MaxFiles and MaxBytes bound the includes (0 = the defaults above).
	MaxDepth, MaxFiles int
	MaxBytes           int64
}

// Config is a configuration with its includes expanded.
type Config struct {
	Directives []*Directive
	// Included are the files read through include, in the order read.
	Included []string
	// Notes say what an include was read as, or why it was left out.
	Notes []Note
}

// Note is something Load did that the configuration does not say, at the include.
type Note struct {
	Pos
	Text string
}

// Load parses the file at path, whose content is data, and the files it includes.
func (ld *Loader) Load(path string, data []byte) (*Config, error) {
	ds, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	st := &loadState{Loader: ld, cfg: &Config{}}
	if st.MaxDepth == 0 {
		st.MaxDepth = DefaultMaxDepth
	}
	if st.MaxFiles == 0 {
		st.MaxFiles = DefaultMaxFiles
	}
	if st.MaxBytes == 0 {
		st.MaxBytes = DefaultMaxBytes
	}
	st.bytes = int64(len(data))
	if st.cfg.Directives, err = st.expand(ds, []string{realPath(path)}, []string{path}); err != nil {
		return nil, err
	}
	return st.cfg, nil
}

type loadState struct {
	*Loader
	cfg   *Config
	bytes int64
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	return p
}

// expand replaces each include in ds by the directives of the files it names. stack holds
// the real paths of the files being read, the main one first, and names their names.
func (st *loadState) expand(ds []*Directive, stack, names []string) ([]*Directive, error) {
	out := make([]*Directive, 0, len(ds))
	for _, d := range ds {
		if d.Name != "include" {
			if d.Body != nil {
				body, err := st.expand(d.Body, stack, names)
				if err != nil {
					return nil, err
				}
				d.Body = body
			}
			out = append(out, d)
			continue
		}
		if d.Block || len(d.Args) != 1 {
			return nil, Errorf(d.Pos(), "invalid number of arguments in \"include\" directive: want one file or mask")
		}
		files, err := st.resolve(d)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			got, err := st.include(d, f, stack, names)
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
		}
	}
	return out, nil
}

// include reads one file an include names, and its own includes.
func (st *loadState) include(d *Directive, f string, stack, names []string) ([]*Directive, error) {
	real := realPath(f)
	if i := slices.Index(stack, real); i >= 0 {
		chain := append(slices.Clone(names[i:]), f)
		return nil, Errorf(d.Pos(), "include %q makes a cycle: %s", d.Args[0], strings.Join(chain, " includes "))
	}
	if len(stack) > st.MaxDepth {
		return nil, Errorf(d.Pos(), "include %q: includes nested more than %d deep", d.Args[0], st.MaxDepth)
	}
	if len(st.cfg.Included) >= st.MaxFiles {
		return nil, Errorf(d.Pos(), "include %q: more than %d files included", d.Args[0], st.MaxFiles)
	}
	data, err := st.ReadFile(f)
	if err != nil {
		e := Errorf(d.Pos(), "include %q: %s: %v", d.Args[0], f, err)
		e.Err = err
		return nil, e
	}
	if st.bytes += int64(len(data)); st.bytes > st.MaxBytes {
		return nil, Errorf(d.Pos(), "include %q: more than %d MiB read through includes", d.Args[0], st.MaxBytes>>20)
	}
	st.cfg.Included = append(st.cfg.Included, f)
	ds, err := Parse(f, data)
	if err != nil {
		return nil, err
	}
	return st.expand(ds, append(slices.Clone(stack), real), append(slices.Clone(names), f))
}

// resolve lists the files an include names, in the order nginx reads them.
func (st *loadState) resolve(d *Directive) ([]string, error) {
	name, at := d.Arg(0)
	path := name
	switch {
	case filepath.IsAbs(name):
		if st.Rebase != nil {
			if r := st.Rebase(name); r != "" && r != name {
				path = r
				st.cfg.Notes = append(st.cfg.Notes, Note{Pos: at, Text: fmt.Sprintf("include %s read as %s", name, r)})
			}
		}
	default:
		path = filepath.Join(st.Prefix, name)
	}
	if !strings.ContainsAny(name, "*?[") {
		_, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			if st.Absent != nil {
				if why, ok := st.Absent(path); ok {
					st.cfg.Notes = append(st.cfg.Notes, Note{Pos: at, Text: fmt.Sprintf("include %s: %s", name, why)})
					return nil, nil
				}
			}
			hint := ""
			if !filepath.IsAbs(name) {
				hint = fmt.Sprintf(" (nginx reads a relative include from the directory of the main configuration, here %s)", dirName(st.Prefix))
			}
			return nil, Errorf(at, "include %q: %s: no such file or directory%s", name, path, hint)
		}
		return []string{path}, nil
	}
	matches, err := filepath.Glob(path)
	if err != nil {
		return nil, Errorf(at, "include %q: %v", name, err)
	}
	// glob(3), which ngx_open_glob calls, matches a leading '.' only when the mask does.
	dotOK := strings.HasPrefix(filepath.Base(path), ".")
	matches = slices.DeleteFunc(matches, func(m string) bool {
		return !dotOK && strings.HasPrefix(filepath.Base(m), ".")
	})
	slices.Sort(matches)
	return matches, nil
}

func dirName(p string) string {
	if p == "" {
		return "."
	}
	return p
}
