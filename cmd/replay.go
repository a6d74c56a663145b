package cmd

import (
	"errors"

	"github.com/spf13/cobra"
)

// ReplayOptions are the flags of `patience replay`.
type ReplayOptions struct{}

// NewCmdReplay builds `patience replay`. Placeholder until its issue lands.
func NewCmdReplay(f *Factory, runF func(*ReplayOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:    "replay",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("replay is not built yet")
		},
	}
}
