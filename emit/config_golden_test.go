package emit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/patience-dev/patience/emit"
	"github.com/patience-dev/patience/internal/golden"
)

// configTargets are the config targets this file's tests cover.
var configTargets = []emit.Target{emit.Nginx, emit.Envoy, emit.Istio, emit.GatewayAPI, emit.Resilience4j, emit.GRPC, emit.ALB}

// TestConfigGoldens emits each config target from every fixture into one golden per target
// (testdata/TARGET.golden; go test -update rewrites them): the text, then the settings and
// the missing bounds as JSON's emit[] carries them.
func TestConfigGoldens(t *testing.T) {
	for _, tg := range configTargets {
		t.Run(string(tg), func(t *testing.T) {
			var b strings.Builder
			for _, fx := range configFixtures() {
				e, err := emit.Emit(tg, fx.in)
				if err != nil {
					t.Fatalf("%s: %v", fx.name, err)
				}
				if e.Target != string(tg) || e.Kind != string(emit.KindConfig) {
					t.Errorf("%s: target %q kind %q, want %q config", fx.name, e.Target, e.Kind, tg)
				}
				fmt.Fprintf(&b, "===== %s (%s) =====\n%s", fx.name, e.Language, e.Text)
				b.WriteString("----- settings\n")
				for _, s := range e.Settings {
					fmt.Fprintf(&b, "%s = %s: %s\n", s.Knob, s.Value, s.Bounds)
				}
				b.WriteString("----- missing\n")
				for _, m := range e.Missing {
					fmt.Fprintf(&b, "- %s\n", m)
				}
			}
			golden.Assert(t, string(tg), []byte(b.String()))
		})
	}
}
