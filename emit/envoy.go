package emit

// envoyWriter writes the recommendation for Envoy (not written yet).
var envoyWriter = writer{target: Envoy, kind: KindConfig, language: "yaml"}
