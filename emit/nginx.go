package emit

// nginxWriter writes the recommendation for Nginx (not written yet).
var nginxWriter = writer{target: Nginx, kind: KindConfig, language: "nginx"}
