package advise

import (
	"os"
	"testing"
)

// seedFile is a testdata file's content as a fuzz seed.
func seedFile(f *testing.F, name string) string {
	f.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		f.Fatal(err)
	}
	return string(b)
}

// FuzzELBFixes runs the ALB/Classic ELB reader on -1 rows, request_creation_time and the
// Classic layout.
func FuzzELBFixes(f *testing.F) {
	fuzzParse(f, FormatALB, seedFile(f, "alb-unanswered-fixes.log"), seedFile(f, "classic-elb-fixes.log"))
}

// FuzzHAProxyFixes runs the HAProxy reader on every line shape it names.
func FuzzHAProxyFixes(f *testing.F) {
	fuzzParse(f, FormatHAProxy, seedFile(f, "haproxy-shapes-fixes.log"))
}

// FuzzNginxUpstreamFixes runs the nginx reader on ingress-nginx's upstreaminfo lines with
// attempt lists.
func FuzzNginxUpstreamFixes(f *testing.F) {
	fuzzParse(f, FormatNginx, seedFile(f, "ingress-upstreaminfo-fixes.log"))
}

// FuzzOTLPFixes runs the OTLP reader on spans with and without an HTTP status.
func FuzzOTLPFixes(f *testing.F) {
	fuzzParse(f, FormatOTLP, seedFile(f, "otlp-outcomes-fixes.json"))
}

// FuzzJMeterFixes runs the CSV reader on JMeter rows with Latency 0 and a "null" URL.
func FuzzJMeterFixes(f *testing.F) {
	fuzzParse(f, FormatCSV, seedFile(f, "jmeter-latency-zero-fixes.csv"))
}
