package emit

// requestsWriter writes the recommendation for Requests (not written yet).
var requestsWriter = writer{target: Requests, kind: KindCode, language: "python"}
