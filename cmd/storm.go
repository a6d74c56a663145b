package cmd

import (
	"errors"

	"github.com/spf13/cobra"
)

// StormOptions are the flags of `patience storm`.
type StormOptions struct{}

// NewCmdStorm builds `patience storm`. Placeholder until its issue lands.
func NewCmdStorm(f *Factory, runF func(*StormOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:    "storm",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("storm is not built yet")
		},
	}
}
