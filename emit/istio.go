package emit

// istioWriter writes the recommendation for Istio (not written yet).
var istioWriter = writer{target: Istio, kind: KindConfig, language: "yaml"}
