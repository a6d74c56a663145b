package source

import (
	"fmt"
	"path/filepath"
	"strings"
)

// summary is a call on one line: "file:line:col METHOD lib connect=…/origin read=… total=…
// attempts=N key=…", what the table tests compare.
func summary(c Call) string {
	b := func(ms *int64, o Origin) string {
		if ms == nil {
			return string(o)
		}
		return fmt.Sprintf("%dms/%s", *ms, o)
	}
	attempts := "-"
	if c.Retry != nil {
		attempts = fmt.Sprintf("%d", c.Retry.MaxAttempts)
	}
	key := "?"
	if c.IdempotencyKey != nil {
		key = fmt.Sprint(*c.IdempotencyKey)
	}
	method := c.Method
	if method == "" {
		method = "?"
	}
	return strings.Join([]string{
		fmt.Sprintf("%s:%d:%d", filepath.Base(c.File), c.Line, c.Col), method, c.Library,
		"connect=" + b(c.Timeouts.ConnectMS, c.Origin.Connect), "read=" + b(c.Timeouts.ReadMS, c.Origin.Read),
		"total=" + b(c.Timeouts.TotalMS, c.Origin.Total), "attempts=" + attempts, "key=" + key,
	}, " ")
}
