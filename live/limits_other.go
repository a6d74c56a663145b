//go:build !unix

package live

// fdBudget is a conservative cap where the descriptor limit cannot be read.
func fdBudget() int { return DefaultMaxConcurrency }
