package emit

// fetchWriter writes the recommendation for Fetch (not written yet).
var fetchWriter = writer{target: Fetch, kind: KindCode, language: "javascript"}
