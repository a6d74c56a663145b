package cmd

import (
	"bytes"
	"testing"
	"time"

	"github.com/patience-dev/patience/advise"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/report"
)

// TestAdviseFlags: flags bind into AdviseOptions and turn into advise.Options.
func TestAdviseFlags(t *testing.T) {
	f := &Factory{IO: report.Test(nil, &bytes.Buffer{}, &bytes.Buffer{})}
	var got *AdviseOptions
	c := NewCmdAdvise(f, func(o *AdviseOptions) error { got = o; return nil })
	c.SetArgs([]string{"a.log", "b.log.gz", "--format", "nginx", "--by", "route", "--filter", "status<500",
		"--since", "2024-05-01 13:00", "--cutoff", "1%", "--caller", "job", "-o", "json", "--save", "p.json"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	o, err := adviseOptions(got)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Files) != 2 || o.Format != advise.FormatNginx || o.By != advise.ByRoute || o.Filter != "status<500" || got.Output != "json" || got.Save != "p.json" {
		t.Errorf("options %+v", o)
	}
	if !o.Since.Equal(time.Date(2024, 5, 1, 13, 0, 0, 0, time.UTC)) || o.Advice.Options.Cutoff != 0.01 {
		t.Errorf("since %v cutoff %v", o.Since, o.Advice.Options.Cutoff)
	}
	if o.Advice.Caller.Kind != profile.CallerJob || o.Advice.Caller.Budget != 0 {
		t.Errorf("caller %+v: a job without --budget has no retry window", o.Advice.Caller)
	}
	for _, bad := range [][]string{{"a.log", "--format", "xml"}, {"a.log", "--by", "colour"}, {"a.log", "-o", "sarif"}} {
		c := NewCmdAdvise(f, func(*AdviseOptions) error { return nil })
		c.SetArgs(bad)
		c.SilenceErrors, c.SilenceUsage = true, true
		if err := c.Execute(); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
	for _, bad := range []AdviseOptions{{Unit: "parsecs"}, {Since: "yesterday"}, {Cutoff: "100%"}} {
		bad.IO, bad.Window, bad.Budget, bad.ConnectFloor, bad.Top, bad.MaxErrorRate = f.IO, time.Hour, time.Second, time.Second, 1, "5%"
		if bad.Cutoff == "" {
			bad.Cutoff = "0.1%"
		}
		if _, err := adviseOptions(&bad); err == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
}
