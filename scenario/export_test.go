package scenario

// CheckFileKeys exposes checkFileKeys to the external test that compares it with the check
// loader's.
var CheckFileKeys = checkFileKeys
