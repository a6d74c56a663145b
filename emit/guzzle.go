package emit

// guzzleWriter writes the recommendation for Guzzle (not written yet).
var guzzleWriter = writer{target: Guzzle, kind: KindCode, language: "php"}
