package emit

// aiohttpWriter writes the recommendation for AIOHTTP (not written yet).
var aiohttpWriter = writer{target: AIOHTTP, kind: KindCode, language: "python"}
