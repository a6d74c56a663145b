package source

import (
	"strconv"
	"testing"
)

// goBackoffs builds go-retryablehttp clients with the default backoff, with its waits
// changed, with a jittered Backoff, and with a wait computed at run time.
const goBackoffs = `package b

import (
	"os"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

func Calls() {
	a := retryablehttp.NewClient()
	_, _ = a.Get("https://x.example.com")
	b := retryablehttp.NewClient()
	b.RetryWaitMin = 200 * time.Millisecond
	b.RetryWaitMax = 5 * time.Second
	_, _ = b.Get("https://x.example.com")
	c := retryablehttp.NewClient()
	c.Backoff = retryablehttp.LinearJitterBackoff
	_, _ = c.Get("https://x.example.com")
	d := retryablehttp.NewClient()
	d.RetryWaitMin = time.Duration(len(os.Args)) * time.Second
	_, _ = d.Get("https://x.example.com")
}
`

// TestGoRetryBackoff: go-retryablehttp's DefaultBackoff is min·2^n from 1 s to 30 s with no
// jitter; RetryWaitMin/Max change it; a Backoff of the code's, or a wait not constant, leaves
// it unknown (nil: PT006 does not judge it).
func TestGoRetryBackoff(t *testing.T) {
	calls, err := Go.Read([]Input{{Path: "b.go", Data: []byte(goBackoffs)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 4 {
		t.Fatalf("%d calls, want 4", len(calls))
	}
	want := []string{"1000-30000 none", "200-5000 none", "", ""}
	for i, c := range calls {
		got := ""
		if b := c.Retry.Backoff; b != nil {
			got = strconv.FormatInt(*b.InitialMS, 10) + "-" + strconv.FormatInt(*b.MaxMS, 10) + " " + b.Jitter
		}
		if got != want[i] {
			t.Errorf("call at line %d: backoff %q, want %q", c.Line, got, want[i])
		}
	}
}
