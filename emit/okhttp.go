package emit

// okhttpWriter writes the recommendation for OkHttp (not written yet).
var okhttpWriter = writer{target: OkHttp, kind: KindCode, language: "java"}
