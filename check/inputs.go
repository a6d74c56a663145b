package check

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/scenario"
)

// Inputs are what the command line named, sorted into check files and config files.
type Inputs struct {
	Files   []*File
	Configs *Configs
}

// LoadPaths reads every path: a check file (patience.yaml: a mapping with dependencies: or
// scenarios:), a config file recognised by content, or a directory walked for both (hidden
// directories, vendor and node_modules left out; at most MaxWalkFiles files, maxWalkDepth
// levels). An unrecognised file is listed as skipped, never an error; a check file that does
// not load, or a recognised config with a wrong value, is an input error.
func LoadPaths(paths []string) (*Inputs, error) {
	in := &Inputs{Configs: NewConfigs()}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			if err := in.loadOne(p, true); err != nil {
				return nil, err
			}
			continue
		}
		var found []string
		root := filepath.Clean(p)
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable entries are not check's business
			}
			if d.IsDir() {
				if path != root && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".aws" || d.Name() == "vendor" || d.Name() == "node_modules") {
					return filepath.SkipDir
				}
				if strings.Count(strings.TrimPrefix(path, root), string(filepath.Separator)) > maxWalkDepth {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !candidate(path) {
				return nil
			}
			if len(found) >= MaxWalkFiles {
				return fmt.Errorf("more than %d files under %s: name the directories that hold the configs", MaxWalkFiles, p)
			}
			found = append(found, path)
			return nil
		})
		if err != nil {
			return nil, &scenario.Error{File: p, Msg: err.Error()}
		}
		sort.Strings(found)
		for _, f := range found {
			if err := in.loadOne(f, false); err != nil {
				return nil, err
			}
		}
	}
	return in, nil
}

// candidate says whether a walk reads the file: YAML, JSON, INI-like and extension-less
// files (~/.aws/config has none). What is in them decides the rest.
func candidate(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json", ".ini", ".cfg", ".conf":
		return true
	case "":
		return true
	}
	return false
}

func (in *Inputs) loadOne(path string, named bool) error {
	data, err := readBounded(path)
	if err != nil {
		if named {
			return &scenario.Error{File: path, Msg: "cannot read: " + err.Error()}
		}
		in.Configs.Skipped = append(in.Configs.Skipped, SkippedFile{Path: path, Reason: err.Error()})
		return nil
	}
	if isCheckFile(data) {
		f, err := Load(path, data)
		if err != nil {
			return err
		}
		in.Files = append(in.Files, f)
		return nil
	}
	cf, reason, err := ParseConfig(path, data)
	if err != nil {
		return err
	}
	if cf == nil {
		if named && reason == "" {
			reason = "not a check file or a config check reads"
		}
		if reason != "" {
			in.Configs.Skipped = append(in.Configs.Skipped, SkippedFile{Path: path, Reason: reason})
		}
		return nil
	}
	in.Configs.add(cf)
	return nil
}

// readBounded reads a file of at most maxFileSize bytes.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	defer f.Close()
	data, err := input.Read(f, path, maxFileSize)
	var tl *input.TooLargeError
	if errors.As(err, &tl) {
		return nil, errors.New(tl.Reason())
	}
	return data, err
}

// checkKeys are the top-level keys of a check file.
var checkKeys = regexp.MustCompile(`(?m)^(dependencies|scenarios|max_amplification):`)

// isCheckFile says whether data is a patience check file: a top-level dependencies:,
// scenarios: or max_amplification: key and no Kubernetes apiVersion.
func isCheckFile(data []byte) bool {
	return checkKeys.Match(data) && !bytes.Contains(data, []byte("\napiVersion:")) && !bytes.HasPrefix(data, []byte("apiVersion:"))
}
