package emit

// httpxWriter writes the recommendation for HTTPX (not written yet).
var httpxWriter = writer{target: HTTPX, kind: KindCode, language: "python"}
