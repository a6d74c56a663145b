package check

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/source"
	"gopkg.in/yaml.v3"
)

// Inputs are what the command line named, sorted into check files and config files.
type Inputs struct {
	Files   []*File
	Configs *Configs
	// Read are the files opened, as named or found (a symlink by its own name, not its
	// target's), in the order read: the check files, the configs and the files skipped.
	Read []string
	// seen maps the real path of every file read (symlinks resolved) to the name it was
	// first read under: a file reached twice is read once.
	seen map[string]string
	// nginx are the nginx configurations met, read once every path was: a file a main
	// configuration includes is read as part of it, not on its own.
	nginx []pendingConf
	// Sources are the source files read (recognised by extension), each with its calls.
	Sources []*SourceFile
	// pkgs are the source packages read in part (a package is parsed whole), in order;
	// expected counts the files of each a walk found and has not read yet: a package is parsed
	// as soon as its last file is read, so memory holds one package's text, not a tree's.
	pkgs     map[pkgKey][]pendingSource
	pkgOrder []pkgKey
	expected map[pkgKey]int
}

// pendingConf is a file read and not yet sorted.
type pendingConf struct {
	path string
	data []byte
}

// LoadPaths reads every path: a check file (patience.yaml: a mapping with dependencies: or
// scenarios:), a config file recognised by content, a scenario file named on the command
// line (replayed for its expect: blocks, PT100), or a directory walked for check files and
// configs (walk). An unrecognised file is listed as skipped with the reason, never an error;
// a path that cannot be read — named or found in a walk — a check file that does not load,
// or a recognised config with a wrong value, is an input error.
func LoadPaths(paths []string) (*Inputs, error) {
	return LoadPathsStdin(paths, nil)
}

// StdinName is how check names standard input read for "-" in the report and in every
// error: (stdin):LINE:COL.
const StdinName = "(stdin)"

// LoadPathsStdin is LoadPaths where "-" reads stdin (`helm template . | patience check -`):
// once, bounded like a file (maxFileSize), sorted by content as a file named on the command
// line is, under the name StdinName. With a nil stdin, "-" is a file name like any other.
func LoadPathsStdin(paths []string, stdin io.Reader) (*Inputs, error) {
	in := &Inputs{Configs: NewConfigs(), seen: map[string]string{}, pkgs: map[pkgKey][]pendingSource{}, expected: map[pkgKey]int{}}
	stdinRead := false
	for _, p := range paths {
		if p == input.Stdin && stdin != nil {
			if stdinRead {
				return nil, &scenario.Error{File: StdinName, Msg: "- is named twice: standard input can be read once"}
			}
			stdinRead = true
			if err := in.loadStdin(stdin); err != nil {
				return nil, err
			}
			continue
		}
		st, err := os.Stat(p) // follows a symlink: a linked directory is walked
		if err != nil || !st.IsDir() {
			if err := in.loadOne(p, true); err != nil {
				return nil, err
			}
			continue
		}
		w := &walker{root: p, dirs: map[string]string{}}
		if err := w.walk(filepath.Clean(p), 0); err != nil {
			return nil, err
		}
		sort.Strings(w.found)
		in.Configs.Skipped = append(in.Configs.Skipped, w.skipped...)
		if len(w.found) == 0 {
			in.Configs.Skipped = append(in.Configs.Skipped, SkippedFile{Path: p, Reason: w.emptyReason()})
		}
		in.expectSources(w.found)
		for _, f := range w.found {
			if err := in.loadOne(f, false); err != nil {
				return nil, err
			}
		}
	}
	if err := in.loadNginx(); err != nil {
		return nil, err
	}
	if err := in.loadSources(); err != nil {
		return nil, err
	}
	return in, nil
}

// loadNginx reads the nginx configurations met: the main ones (nginx.conf, then a file with
// the http block) first, then the others, each but those a configuration already read includes
// (skipped with the reason: they were read there, with what they inherit).
func (in *Inputs) loadNginx() error {
	slices.SortStableFunc(in.nginx, func(a, b pendingConf) int {
		return cmp.Compare(nginxRank(a.path, a.data), nginxRank(b.path, b.data))
	})
	for _, p := range in.nginx {
		if root, ok := in.Configs.included[realPath(p.path)]; ok && p.path != StdinName {
			in.Configs.Skipped = append(in.Configs.Skipped, SkippedFile{Path: p.path, Reason: "included by " + root.Path + ": read as part of it"})
			continue
		}
		cf, reason, err := readNginxConf(p.path, p.data)
		if err != nil {
			return err
		}
		if cf == nil {
			in.Configs.Skipped = append(in.Configs.Skipped, SkippedFile{Path: p.path, Reason: reason})
			continue
		}
		in.Configs.add(cf)
	}
	in.nginx = nil
	return nil
}

// walker walks one directory named on the command line. Symlinked files and directories are
// followed (a Kubernetes ConfigMap or Secret mount is a directory of symlinks into ..data/,
// itself a symlink to a hidden timestamped directory); hidden directories (..data among
// them, so a mount is read once, by its visible names), vendor and node_modules are left
// out; a directory reached twice (a symlink loop, two links to one directory) is walked
// once; at most MaxWalkFiles candidate files, maxWalkDepth levels.
type walker struct {
	// root is the directory as named.
	root string
	// dirs maps the real path of every directory walked to the name it was walked under.
	dirs map[string]string
	// found are the candidate files, in walk order (each directory's entries by name); the
	// caller sorts them.
	found []string
	// files counts the files seen, candidates or not.
	files   int
	skipped []SkippedFile
}

// walk reads dir, depth levels below the directory named. Every entry that cannot be read is
// an error naming it.
func (w *walker) walk(dir string, depth int) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return &scenario.Error{File: dir, Msg: "cannot read: " + pathErrText(err)}
	}
	if first, ok := w.dirs[real]; ok {
		w.skipped = append(w.skipped, SkippedFile{Path: dir, Reason: "a symlink to a directory already walked as " + first})
		return nil
	}
	w.dirs[real] = dir
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return &scenario.Error{File: dir, Msg: "cannot read the directory: " + pathErrText(err)}
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		typ := e.Type()
		if typ&fs.ModeSymlink != 0 {
			st, err := os.Stat(path)
			if err != nil {
				if hiddenDir(e.Name()) || !candidate(path) {
					continue // a dangling link no walk would read anyway (..data_tmp mid-update)
				}
				target, _ := os.Readlink(path)
				return &scenario.Error{File: path, Msg: fmt.Sprintf("cannot read: a symlink to %s: %s", target, pathErrText(err))}
			}
			typ = st.Mode().Type()
		}
		if typ.IsDir() {
			// ..data and ..2024_… of a ConfigMap mount are hidden: read by their visible links.
			if hiddenDir(e.Name()) || e.Name() == "vendor" || e.Name() == "node_modules" || depth+1 > maxWalkDepth {
				continue
			}
			if err := w.walk(path, depth+1); err != nil {
				return err
			}
			continue
		}
		if !typ.IsRegular() {
			continue // a socket, a device, a pipe: nothing a config is kept in
		}
		w.files++
		if !candidate(path) {
			continue
		}
		if lang := source.ForPath(path); lang != nil {
			rel, err := filepath.Rel(w.root, path)
			if err != nil {
				rel = path
			}
			if reason := lang.Test(rel); reason != "" {
				w.skipped = append(w.skipped, SkippedFile{Path: path, Reason: reason})
				continue
			}
		}
		if len(w.found) >= MaxWalkFiles {
			return &scenario.Error{File: w.root, Msg: fmt.Sprintf("more than %d files under %s: name the directories that hold the configs", MaxWalkFiles, w.root)}
		}
		w.found = append(w.found, path)
	}
	return nil
}

// hiddenDir says whether a walk leaves a directory of that name out: hidden ones, but for
// .aws (~/.aws/config).
func hiddenDir(name string) bool {
	return strings.HasPrefix(name, ".") && name != ".aws"
}

// emptyReason says why a directory walked gave no file to read.
func (w *walker) emptyReason() string {
	if w.files == 0 {
		return "a directory with no file in it (hidden directories, vendor and node_modules are left out)"
	}
	return fmt.Sprintf("a directory of %s, none of a kind a walk reads (.yaml, .yml, .json, .ini, .cfg, .conf, source code such as .go, or no extension)", plural(w.files, "file", "files"))
}

// candidate says whether a walk reads the file: YAML, JSON, INI-like and extension-less
// files (~/.aws/config has none), and source code by its extension (source.ForPath). What
// is in them decides the rest.
func candidate(path string) bool {
	if source.ForPath(path) != nil {
		return true
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json", ".ini", ".cfg", ".conf", ".properties":
		return true
	case "":
		return true
	}
	return false
}

// loadOne reads the file at path, named on the command line or found in a walk, and sorts
// it: a check file (by its keys, or by its name: a patience.yaml is always one), a config, a
// scenario named on the command line, or skipped with the reason.
func (in *Inputs) loadOne(path string, named bool) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		if first, ok := in.seen[real]; ok {
			in.Configs.Skipped = append(in.Configs.Skipped, SkippedFile{Path: path, Reason: "the same file as " + first + ", read once"})
			return nil
		}
		in.seen[real] = path
	}
	data, err := readBounded(path)
	if err != nil {
		var tl *tooLarge
		if !named && errors.As(err, &tl) {
			// A walk meets generated JSON far larger than any config: not one check reads.
			in.Configs.Skipped = append(in.Configs.Skipped, SkippedFile{Path: path, Reason: tl.reason})
			return nil
		}
		return &scenario.Error{File: path, Msg: "cannot read: " + err.Error()}
	}
	return in.sort(path, data, named)
}

// loadStdin reads standard input, as bounded as a file, and sorts it as a file named on the
// command line.
func (in *Inputs) loadStdin(stdin io.Reader) error {
	data, err := input.ReadContext(input.Interrupt(), stdin, StdinName, maxFileSize)
	var tl *input.TooLargeError
	if errors.As(err, &tl) {
		return &scenario.Error{File: StdinName, Msg: "cannot read: " + tl.Reason()}
	}
	if err != nil {
		return err
	}
	return in.sort(StdinName, data, true)
}

// sort files data, read from path: a check file, a config, a scenario or skipped.
func (in *Inputs) sort(path string, data []byte, named bool) error {
	in.Read = append(in.Read, path)
	if lang := source.ForPath(path); lang != nil {
		if reason := builtSource(lang, data); reason != "" && !named {
			// A minified bundle found in a walk: build output, as dist/ is.
			in.Configs.Skipped = append(in.Configs.Skipped, SkippedFile{Path: path, Reason: reason})
			return in.notSource(lang, path)
		}
		return in.addSource(lang, source.Input{Path: path, Data: data})
	}
	if isCheckFileName(path) {
		return in.loadCheck(path, data)
	}
	if isCheckFile(data) {
		if reason := otherToolsFile(data); reason != "" && !named {
			// A walk meets other tools' files with a top-level dependencies: (a Helm v2
			// requirements.yaml, a conda environment.yml, a pubspec.yaml): not an error in
			// a tree check was only asked to search.
			in.Configs.Skipped = append(in.Configs.Skipped, SkippedFile{Path: path, Reason: reason})
			return nil
		}
		return in.loadCheck(path, data)
	}
	if isNginxConf(path, data) {
		in.nginx = append(in.nginx, pendingConf{path: path, data: data})
		return nil
	}
	cf, reason, err := ParseConfig(path, data)
	if err != nil {
		return err
	}
	if cf != nil {
		in.Configs.add(cf)
		return nil
	}
	if named && nearCheckKey(data) {
		// A check file with a misspelt key (scenario:, dependecies:): the loader names it.
		return in.loadCheck(path, data)
	}
	if isScenarioFile(data) {
		r, err := in.scenarioFile(path, data, named)
		if err != nil || r == "" {
			return err
		}
		reason = r
	}
	if reason == "" {
		reason = "not a check file or a config check reads"
	}
	in.Configs.Skipped = append(in.Configs.Skipped, SkippedFile{Path: path, Reason: reason})
	return nil
}

func (in *Inputs) loadCheck(path string, data []byte) error {
	f, err := Load(path, data)
	if err != nil {
		return err
	}
	in.Files = append(in.Files, f)
	return nil
}

// scenarioFile takes a scenario file named on the command line as a check file listing it
// under scenarios: (replayed, its expect: blocks checked by PT100), after loading it as
// strictly as replay does, so a typo is an error at its line; "" = taken. A scenario without
// expect: gives PT100 nothing to assert, and one found in a walk is not replayed (a walk
// would run every simulation in a tree): both are skipped with the reason.
func (in *Inputs) scenarioFile(path string, data []byte, named bool) (reason string, err error) {
	if !named {
		return "a scenario file: check replays one named on the command line or listed under scenarios: in a check file", nil
	}
	sc, err := scenario.Parse(data, path)
	if err != nil {
		return "", err
	}
	if path == StdinName {
		// PT100 replays a scenario by its path, after every static rule ran.
		return "a scenario on standard input: check replays scenario files it can name (patience replay - replays one from standard input)", nil
	}
	if len(sc.Expect) == 0 {
		return "a scenario with no expect: block: a replay would assert nothing (patience replay " + path + " runs it)", nil
	}
	in.Files = append(in.Files, &File{
		Path: path, MaxAmplification: DefaultMaxAmplification, Disabled: map[string]bool{}, Levels: map[string]Severity{},
		Scenarios: []ScenarioRef{{Path: path, Pos: policy.Pos{File: path, Line: 1, Col: 1}}},
	})
	return "", nil
}

// readBounded reads a file of at most maxFileSize bytes. Its errors carry no path (the
// caller's message leads with it): the reason an open failed, or *tooLarge.
func readBounded(path string) ([]byte, error) {
	// Ctrl-C abandons an open or a read that waits on a writer (a FIFO): input.Interrupt.
	f, err := input.Open(input.Interrupt(), path)
	var se *input.StoppedError
	if errors.As(err, &se) {
		return nil, se
	}
	if err != nil {
		return nil, errors.New(pathErrText(err))
	}
	defer f.Close()
	data, err := input.Read(f, path, maxFileSize)
	var tl *input.TooLargeError
	if errors.As(err, &tl) {
		return nil, &tooLarge{tl.Reason()}
	}
	if errors.As(err, &se) {
		return nil, se
	}
	if err != nil {
		return nil, errors.New(pathErrText(err))
	}
	return data, nil
}

// tooLarge is a file over maxFileSize: "larger than 4 MiB".
type tooLarge struct{ reason string }

func (e *tooLarge) Error() string { return e.reason }

// pathErrText is err without its *fs.PathError wrapping ("permission denied").
func pathErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// checkKeys are the top-level keys of a check file.
var checkKeys = regexp.MustCompile(`(?m)^(dependencies|scenarios|max_amplification):`)

// isCheckFile says whether data is a patience check file: a top-level dependencies:,
// scenarios: or max_amplification: key and no Kubernetes apiVersion.
func isCheckFile(data []byte) bool {
	return checkKeys.Match(data) && !bytes.Contains(data, []byte("\napiVersion:")) && !bytes.HasPrefix(data, []byte("apiVersion:"))
}

// isCheckFileName says whether the file is named as check's own default (patience.yaml or
// patience.yml): it is a check file whatever it holds, so one truncated, emptied or with a
// misspelt key is an error, not a file skipped.
func isCheckFileName(path string) bool {
	switch strings.ToLower(filepath.Base(path)) {
	case DefaultFile, "patience.yml":
		return true
	}
	return false
}

// topKey is a key at the top of a YAML mapping.
var topKey = regexp.MustCompile(`(?m)^([A-Za-z][A-Za-z0-9_-]*)[ \t]*:`)

// nearCheckKey says whether a top-level key of data is a check file's key misspelt (within
// two edits: scenario, dependecies, max-amplification) and the file no Kubernetes resource.
func nearCheckKey(data []byte) bool {
	if bytes.Contains(data, []byte("\napiVersion:")) || bytes.HasPrefix(data, []byte("apiVersion:")) {
		return false
	}
	for _, m := range topKey.FindAllSubmatch(data, -1) {
		k := strings.ToLower(strings.ReplaceAll(string(m[1]), "-", "_"))
		if scenario.Suggest(k, []string{"dependencies", "scenarios", "max_amplification"}) != "" {
			return true
		}
	}
	return false
}

// scenarioKeys are top-level keys only a scenario file has together: target: with load:,
// policy: or policies:.
var (
	scenarioTarget = regexp.MustCompile(`(?m)^target[ \t]*:`)
	scenarioOther  = regexp.MustCompile(`(?m)^(load|policy|policies)[ \t]*:`)
)

// isScenarioFile says whether data looks like a patience scenario (docs/design.md §4): a top-level
// target: and one of load:, policy:, policies:.
func isScenarioFile(data []byte) bool {
	return scenarioTarget.Match(data) && scenarioOther.Match(data)
}

// checkFileKeys are the top-level keys of a check file; dependencyKeys those of one of its
// dependencies (load.go).
var (
	checkFileKeys  = []string{"dependencies", "scenarios", "max_amplification", "rules"}
	dependencyKeys = []string{"name", "caller", "request", "profile", "cutoff", "layers", "via", "policy"}
)

// otherToolsFile says why data, which has a check file's top-level key, is another tool's
// file: a top-level key or a dependencies: entry's key no check file has, nor a misspelling
// of one (more than two edits from every key), or dependencies: entries that are not
// mappings. "" = it may be a check file (one with a typo is the loader's error). Helm v2's
// requirements.yaml lists dependencies with version: and repository: (helm/charts
// stable/prometheus-operator/requirements.yaml); a conda environment.yml lists package
// strings beside name: and channels:; a Dart pubspec.yaml has name: and a dependencies:
// mapping.
func otherToolsFile(data []byte) string {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return ""
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i].Value
		if foreignKey(k, checkFileKeys) {
			return fmt.Sprintf("a top-level %s: beside dependencies: or scenarios: — another tool's file, not a check file (named on the command line, it is checked as one)", k)
		}
		if k != "dependencies" || root.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		for _, it := range root.Content[i+1].Content {
			if it.Kind != yaml.MappingNode {
				return fmt.Sprintf("dependencies: lists %s, not a mapping — another tool's file, not a check file (named on the command line, it is checked as one)", scenario.KindName(it))
			}
			for j := 0; j+1 < len(it.Content); j += 2 {
				if dk := it.Content[j].Value; foreignKey(dk, dependencyKeys) {
					return fmt.Sprintf("dependencies: entries with %s: — another tool's file (a Helm chart's requirements.yaml has version: and repository:), not a check file (named on the command line, it is checked as one)", dk)
				}
			}
		}
	}
	return ""
}

// foreignKey says whether key is none of keys nor within two edits of one.
func foreignKey(key string, keys []string) bool {
	k := strings.ToLower(strings.ReplaceAll(key, "-", "_"))
	return scenario.Suggest(k, keys) == ""
}
