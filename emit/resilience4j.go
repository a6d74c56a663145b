package emit

// resilience4jWriter writes the recommendation for Resilience4j (not written yet).
var resilience4jWriter = writer{target: Resilience4j, kind: KindConfig, language: "yaml"}
