// Command estimate measures the estimate `patience storm` and `patience check` give up front
// (storm.Expect, check.Options.Estimate) against the time the run then takes, for every
// bundled scenario, the scenario files under check/testdata and ../shared/corpus (when
// there are any), heavier copies of them (the arrival rate raised, for replays of seconds)
// and storm's quick models of the benchmarks and the command's help. Each case is estimated
// exactly as the command does it — calibrated on this machine just before, on the workers
// the run uses — then run, and timed. bench/estimate.sh runs it quiet and beside busy loops.
//
//	go run ./bench/estimate [-only SUBSTRING] [-skip-long]
//
// It prints one tab-separated line per case: command, case, predicted (s), low, high,
// measured (s), measured/predicted, and the speed factor the calibration found (the estimate
// over the one at sim.NominalSpeed).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
	"github.com/patience-dev/patience/storm"
)

func main() {
	only := flag.String("only", "", "run the cases whose name contains this")
	skipLong := flag.Bool("skip-long", false, "leave out the cases of a minute or more")
	flag.Parse()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "estimate")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	for _, c := range stormCases() {
		if !strings.Contains(c.name, *only) || (*skipLong && c.long) {
			continue
		}
		runStorm(ctx, c)
	}
	files, err := scenarioFiles(dir)
	if err != nil {
		fail(err)
	}
	for _, f := range files {
		if !strings.Contains(f.name, *only) || (*skipLong && f.long) {
			continue
		}
		runCheck(ctx, dir, f)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "estimate:", err)
	os.Exit(1)
}

// stormCase is a `patience storm` command line as storm.Overrides (flags set in changed).
type stormCase struct {
	name string
	o    storm.Overrides
	long bool
}

func stormCases() []stormCase {
	quick := func(name string, long bool, edit func(o *storm.Overrides)) stormCase {
		o := storm.Overrides{Clients: storm.DefaultClients, Rate: "150/s", Capacity: "300/s", Timeout: "1s", Attempts: "4",
			Duration: "3m", Seed: storm.DefaultSeed, Changed: map[string]bool{}}
		edit(&o)
		return stormCase{name: name, o: o, long: long}
	}
	var cs []stormCase
	for _, n := range bundled() {
		cs = append(cs, quick("storm "+n, false, func(o *storm.Overrides) { o.Scenario = n }))
	}
	cs = append(cs,
		quick("storm scenario/testdata/design_example.yaml", false, func(o *storm.Overrides) { o.Scenario = "scenario/testdata/design_example.yaml" }),
		quick("storm", false, func(*storm.Overrides) {}),
		quick("storm --rate 60/s", false, func(o *storm.Overrides) { o.Rate = "60/s" }),
		quick("storm --attempts 4,4,4 --rate 20/s --outage 10s@30s", false, func(o *storm.Overrides) {
			o.Attempts, o.Rate, o.Outages = "4,4,4", "20/s", []string{"10s@30s"}
		}),
		quick("storm --errors 30s@60s --duration 4m", false, func(o *storm.Overrides) {
			o.Errors, o.Duration = []string{"30s@60s"}, "4m"
		}),
		quick("storm --duration 20m", false, func(o *storm.Overrides) { o.Duration = "20m" }),
		quick("storm --rate 1500/s --capacity 3000/s", false, func(o *storm.Overrides) { o.Rate, o.Capacity = "1500/s", "3000/s" }),
		quick("storm --clients 100000 --rate 2000/s --capacity 2200/s --attempts 3 --duration 5m --outage 20s@60s", true, func(o *storm.Overrides) {
			o.Clients, o.Rate, o.Capacity, o.Attempts, o.Duration, o.Outages = 100000, "2000/s", "2200/s", "3", "5m", []string{"20s@60s"}
		}),
	)
	return cs
}

// bundled are the bundled scenarios' names.
func bundled() []string {
	infos, err := scenario.Bundled()
	if err != nil {
		fail(err)
	}
	var names []string
	for _, i := range infos {
		names = append(names, i.Name)
	}
	return names
}

func runStorm(ctx context.Context, c stormCase) {
	sc, _, err := c.o.Apply()
	if err != nil {
		fail(fmt.Errorf("%s: %w", c.name, err))
	}
	parallel := runtime.GOMAXPROCS(0)
	est, _ := storm.Expect(ctx, sc, true, parallel, storm.EstimateCost(sc, true, parallel), 0)
	start := time.Now()
	if _, err := storm.Run(ctx, sc, storm.Options{Bisect: true, Parallel: parallel}); err != nil {
		fail(fmt.Errorf("%s: %w", c.name, err))
	}
	measured := time.Since(start)
	nominal := storm.EstimateTime(sc, true, parallel, sim.NominalSpeed)
	report("storm", c.name, est, measured, nominal)
}

// scenarioFile is a scenario file check replays: its name in the table and its text.
type scenarioFile struct {
	name, text string
	long       bool
}

// scenarioFiles are the bundled scenarios, the scenario files of check/testdata,
// scenario/testdata and ../shared/corpus, and copies of each at 400/s and 2000/s.
func scenarioFiles(dir string) ([]scenarioFile, error) {
	var paths []string
	for _, glob := range []string{"scenarios/*.yaml", "scenario/testdata/*.yaml", "check/testdata/**/*.yaml", "../shared/corpus/**/*.yaml"} {
		m, _ := filepath.Glob(glob)
		paths = append(paths, m...)
	}
	var out []scenarioFile
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		// A scenario file: one the loader takes as one, whose arrivals come at a rate.
		if _, err := scenario.ParseFor(b, p, scenario.ForReplay); err != nil || !rateLine.Match(b) {
			continue
		}
		out = append(out, scenarioFile{name: p, text: string(b)})
		for _, rate := range []string{"400", "2000"} {
			out = append(out, scenarioFile{name: p + " at " + rate + "/s", text: rateLine.ReplaceAllString(string(b), "${1}rate: "+rate+"/s"), long: rate == "2000"})
		}
	}
	return out, nil
}

// rateLine is a scenario's arrival rate.
var rateLine = regexp.MustCompile(`(?m)^(\s+)rate:\s*[0-9.]+/s`)

func runCheck(ctx context.Context, dir string, f scenarioFile) {
	path := filepath.Join(dir, "scenario.yaml")
	if err := os.WriteFile(path, []byte(f.text), 0o644); err != nil {
		fail(err)
	}
	// Profiles and other files a scenario names are relative to its own folder.
	file, err := check.Load(filepath.Join(dir, "patience.yaml"), []byte("scenarios: ["+path+"]\n"))
	if err != nil {
		fail(fmt.Errorf("%s: %w", f.name, err))
	}
	var est check.ReplayEstimate
	var start time.Time
	opts := check.Options{Estimate: func(e check.ReplayEstimate) { est, start = e, time.Now() }}
	if _, err := check.Run(ctx, []*check.File{file}, opts); err != nil {
		fmt.Fprintf(os.Stderr, "estimate: %s: %v (left out)\n", f.name, err)
		return
	}
	if start.IsZero() {
		fmt.Fprintf(os.Stderr, "estimate: %s: no estimate (left out)\n", f.name)
		return
	}
	measured := time.Since(start)
	scs := []*scenario.Scenario{}
	if sc, err := scenario.ParseFor([]byte(f.text), path, scenario.ForReplay); err == nil {
		scs = append(scs, sc)
	}
	report("check", f.name, est.Estimate, measured, check.EstimateReplays(scs, sim.NominalSpeed).Estimate)
}

// report prints a case: the estimate, the time measured, their ratio, and how much slower
// than sim.NominalSpeed the calibration found the machine (the estimate over nominal, the
// estimate at that speed).
func report(command, name string, est sim.Estimate, measured time.Duration, nominal sim.Estimate) {
	fmt.Printf("%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.2f\n", command, name, est.Time.Seconds(), est.Low.Seconds(), est.High.Seconds(),
		measured.Seconds(), measured.Seconds()/est.Time.Seconds(), est.Time.Seconds()/nominal.Time.Seconds())
}
