package probe

import "fmt"

// MaxConcurrency bounds -c/--concurrency and --max-in-flight (issue 24 item 1). Each worker,
// and each request in flight, can hold a connection of its own, and every connection to one
// address needs a local port: Linux's default ephemeral range (32768–60999) has about 28,000.
// Past that a probe measures its own machine, not the target; and without a bound
// `-c 1000000000` started a goroutine per worker before anything else was looked at (23 GB,
// deaf to Ctrl-C).
const MaxConcurrency = 10000

// checkWorkerBounds refuses a worker count or an in-flight bound past MaxConcurrency, naming
// the flag, its value and the bound.
func checkWorkerBounds(c *Config) error {
	if c.Concurrency > MaxConcurrency {
		return fmt.Errorf("--concurrency %q: want at most %d workers (each can hold a connection)", fmt.Sprint(c.Concurrency), MaxConcurrency)
	}
	if c.MaxInFlight > MaxConcurrency {
		return fmt.Errorf("--max-in-flight %q: want at most %d requests in flight (each can hold a connection)", fmt.Sprint(c.MaxInFlight), MaxConcurrency)
	}
	return nil
}

// closedWorkers is how many workers the closed model starts: -c, but never more than the
// requests to send (-n 3 needs 3 workers, whatever -c says).
func closedWorkers(c *Config) int {
	n := c.Concurrency
	if c.Requests > 0 && c.Requests < int64(n) {
		n = int(c.Requests)
	}
	return n
}
