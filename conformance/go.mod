module github.com/patience-dev/patience/conformance

go 1.26.8

require (
	github.com/aws/aws-sdk-go-v2 v1.48.0
	github.com/aws/smithy-go v1.28.9
	github.com/patience-dev/patience v0.0.0
)

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace github.com/patience-dev/patience => ../
