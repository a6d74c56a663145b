package cmd

import (
	"errors"

	"github.com/spf13/cobra"
)

// ScenariosOptions are the flags of `patience scenarios`.
type ScenariosOptions struct{}

// NewCmdScenarios builds `patience scenarios`. Placeholder until its issue lands.
func NewCmdScenarios(f *Factory, runF func(*ScenariosOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:    "scenarios",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("scenarios is not built yet")
		},
	}
}
