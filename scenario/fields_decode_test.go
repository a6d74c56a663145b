package scenario

import (
	"reflect"
	"strings"
	"testing"
)

// TestRowDecodersShareAReader: the decode steps of one table are methods of one reader (a
// row written for another reader would panic in decodeRow when its field is read).
func TestRowDecodersShareAReader(t *testing.T) {
	for _, tb := range referenceTables {
		var reader reflect.Type
		for _, f := range tb.Fields {
			if f.decode == nil {
				continue
			}
			typ := reflect.TypeOf(f.decode)
			if typ.Kind() != reflect.Func || typ.NumIn() != 3 || typ.In(1) != reflect.TypeOf(Entry{}) || typ.In(2).Kind() != reflect.String ||
				typ.NumOut() != 1 || typ.Out(0).String() != "error" {
				t.Errorf("%s.%s: decode is %v, want func(*Reader, Entry, string) error", tb.ID, f.Name, typ)
				continue
			}
			if reader == nil {
				reader = typ.In(0)
			}
			if typ.In(0) != reader {
				t.Errorf("%s.%s: decodes into %v, the table's other rows into %v", tb.ID, f.Name, typ.In(0), reader)
			}
		}
	}
}

// TestDecodeRowsInTableOrder: of two bad fields, the one the table lists first is reported,
// whatever their order in the file.
func TestDecodeRowsInTableOrder(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, field string
	}{
		{"load", "load: {rate: 10/s, budget: 0s, clients: 0}\n", "load.clients"},
		{"load think", "load: {rate: 10/s, budget: -1s, think: 1s}\n", "load.think"},
		{"policy", "policy: {retry: {max_attempts: 0}, timeout: soon}\n", "policy.timeout"},
		{"retry", "policy: {retry: {jitter_factor: x, base: 5, max_attempts: 0}}\n", "policy.retry.max_attempts"},
		{"request", "load: {rate: 10/s, request: {idempotency_key: 1, path: x, method: get}}\n", "load.request.method"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "duration: 1m\ntarget: {latency: {fixed: 1ms}}\n" + tc.yaml
			if !strings.Contains(tc.yaml, "load:") {
				src += "load: {rate: 10/s}\n"
			}
			if !strings.Contains(tc.yaml, "policy:") {
				src += "policy: {name: ours}\n"
			}
			_, err := Parse([]byte(src), "order.yaml")
			e, ok := err.(*Error)
			if !ok || e.Field != tc.field {
				t.Errorf("got %v, want an error at %s", err, tc.field)
			}
		})
	}
}
