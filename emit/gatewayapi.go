package emit

// gatewayAPIWriter writes the recommendation for GatewayAPI (not written yet).
var gatewayAPIWriter = writer{target: GatewayAPI, kind: KindConfig, language: "yaml"}
