package emit

// grpcWriter writes the recommendation for GRPC (not written yet).
var grpcWriter = writer{target: GRPC, kind: KindConfig, language: "json"}
