package policy

// DefaultMaxAmplification is the most calls to the dependency one logical request may turn
// into before a policy counts as multiplying an outage: check's PT009 default
// (max_amplification) and the bar replay's and storm's verdicts grade amplification by.
const DefaultMaxAmplification = 10.0
