package emit

// axiosWriter writes the recommendation for Axios (not written yet).
var axiosWriter = writer{target: Axios, kind: KindCode, language: "javascript"}
