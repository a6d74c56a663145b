package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyDirection keeps the layout's dependency direction (README "Layout"):
// verdict (a leaf: the shape of every judgement); policy ◄ probe ◄ scenario ◄ replay ◄ sim ◄ storm, check; live ◄ replay (never sim);
// report and cmd on top. It reads `go list -deps`, so an import added anywhere in a
// package's transitive closure is caught.
func TestDependencyDirection(t *testing.T) {
	const mod = "github.com/patience-dev/patience/"
	forbidden := map[string][]string{
		"verdict":  {"policy", "probe", "scenario", "replay", "sim", "live", "storm", "check", "report", "cmd"},
		"policy":   {"probe", "scenario", "replay", "sim", "live", "storm", "check", "report", "cmd"},
		"probe":    {"scenario", "replay", "sim", "live", "storm", "check", "report", "cmd"},
		"scenario": {"replay", "sim", "live", "storm", "check", "report", "cmd"},
		"replay":   {"sim", "live", "storm", "check", "report", "cmd"},
		"sim":      {"live", "storm", "check", "report", "cmd"},
		"live":     {"sim", "storm", "check", "report", "cmd"},
		"storm":    {"live", "check", "report", "cmd"},
		"check":    {"live", "storm", "report", "cmd"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", "./"+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v", pkg, err)
		}
		deps := map[string]bool{}
		for _, d := range strings.Fields(string(out)) {
			deps[strings.TrimPrefix(d, mod)] = true
		}
		for _, b := range bad {
			if deps[b] {
				t.Errorf("%s depends on %s (go list -deps ./%s): the layout forbids it", pkg, b, pkg)
			}
		}
		for _, lib := range []string{"github.com/spf13/cobra", "github.com/charmbracelet/lipgloss", "github.com/vbauerster/mpb/v8"} {
			if pkg != "report" && deps[lib] {
				t.Errorf("library package %s depends on %s: only report and cmd may", pkg, lib)
			}
		}
	}
	// report renders the results of probe, replay, storm, check and serve; it runs no engine
	// itself. storm and check run sim, so only report's own imports can be held to this.
	out, err := exec.Command("go", "list", "-f", "{{join .Imports \" \"}}", "./report").Output()
	if err != nil {
		t.Fatalf("go list ./report: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		switch strings.TrimPrefix(d, mod) {
		case "sim", "cmd":
			t.Errorf("report imports %s: it renders results and runs no engine", d)
		}
	}
}
