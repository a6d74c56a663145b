package emit

// laravelWriter writes the recommendation for Laravel (not written yet).
var laravelWriter = writer{target: Laravel, kind: KindCode, language: "php"}
