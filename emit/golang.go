package emit

// goWriter writes the recommendation for Go (not written yet).
var goWriter = writer{target: Go, kind: KindCode, language: "go"}
