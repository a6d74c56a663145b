package cmd

import (
	"errors"

	"github.com/spf13/cobra"
)

// CheckOptions are the flags of `patience check`.
type CheckOptions struct{}

// NewCmdCheck builds `patience check`. Placeholder until its issue lands.
func NewCmdCheck(f *Factory, runF func(*CheckOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:    "check",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("check is not built yet")
		},
	}
}
