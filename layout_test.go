package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyDirection keeps the layout's dependency direction (docs/contributing.md "Layout"):
// verdict (a leaf: the shape of every judgement); policy ◄ profile ◄ probe; profile ◄ scenario ◄ replay ◄ sim ◄ storm, check;
// profile ◄ advise (never probe); live ◄ replay (never sim); source (a leaf) ◄ check; report and cmd on top; internal/*
// below everything, importing only other internal packages. It reads `go list -deps`, so an
// import added anywhere in a package's transitive closure is caught.
func TestDependencyDirection(t *testing.T) {
	const mod = "github.com/patience-dev/patience/"
	forbidden := map[string][]string{
		"verdict":  {"policy", "profile", "probe", "advise", "scenario", "replay", "sim", "live", "storm", "check", "report", "cmd"},
		"policy":   {"profile", "probe", "advise", "scenario", "replay", "sim", "live", "storm", "check", "report", "cmd"},
		"profile":  {"probe", "advise", "scenario", "replay", "sim", "live", "storm", "check", "report", "cmd"},
		"probe":    {"advise", "scenario", "replay", "sim", "live", "storm", "check", "report", "cmd"},
		"advise":   {"probe", "scenario", "replay", "sim", "live", "storm", "check", "report", "cmd"},
		"scenario": {"probe", "advise", "replay", "sim", "live", "storm", "check", "report", "cmd"},
		"replay":   {"probe", "advise", "sim", "live", "storm", "check", "report", "cmd"},
		"sim":      {"probe", "advise", "live", "storm", "check", "report", "cmd"},
		"live":     {"advise", "sim", "storm", "check", "report", "cmd"},
		"storm":    {"probe", "advise", "live", "check", "report", "cmd"},
		"check":    {"probe", "advise", "live", "storm", "report", "cmd"},
		"demo":     {"advise", "sim", "storm", "check", "report", "cmd"},
		// source reads program source for call sites: a leaf beside policy, which check reads.
		"source": {"verdict", "policy", "profile", "probe", "advise", "scenario", "replay", "sim", "live", "storm", "check", "report", "cmd"},
	}
	for pkg, bad := range forbidden {
		deps := listDeps(t, "./"+pkg)
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

// listDeps is `go list -deps` of pattern, the module's packages without the module prefix.
func listDeps(t *testing.T, pattern string) map[string]bool {
	t.Helper()
	const mod = "github.com/patience-dev/patience/"
	out, err := exec.Command("go", "list", "-deps", pattern).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pattern, err)
	}
	deps := map[string]bool{}
	for _, d := range strings.Fields(string(out)) {
		deps[strings.TrimPrefix(d, mod)] = true
	}
	return deps
}

// TestInternalImportsOnlyInternal: a package under internal/ is a utility below every room of
// the layout, so it imports nothing of the module but other internal packages.
func TestInternalImportsOnlyInternal(t *testing.T) {
	const mod = "github.com/patience-dev/patience/"
	out, err := exec.Command("go", "list", "-deps", "./internal/...").Output()
	if err != nil {
		t.Fatalf("go list -deps ./internal/...: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if pkg, ok := strings.CutPrefix(d, mod); ok && !strings.HasPrefix(pkg, "internal/") {
			t.Errorf("internal/... depends on %s (go list -deps ./internal/...): internal packages import only other internal packages", pkg)
		}
	}
}

// TestNoNetworkStack: the simulator, the scenario model, replay and storm reach no network
// stack (they read profiles through package profile, not probe), and advise, which reads
// logs and saved profiles, never the HTTP/2 client probe measures with.
func TestNoNetworkStack(t *testing.T) {
	network := []string{"net/http", "crypto/tls", "golang.org/x/net/http2"}
	rules := map[string][]string{
		"sim": network, "scenario": network, "replay": network, "storm": network,
		"advise": {"golang.org/x/net/http2"},
	}
	for pkg, bad := range rules {
		deps := listDeps(t, "./"+pkg)
		for _, b := range bad {
			if deps[b] {
				t.Errorf("%s depends on %s (go list -deps ./%s): it must not reach the network stack", pkg, b, pkg)
			}
		}
	}
}
