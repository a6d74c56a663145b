package cmd

import (
	"errors"

	"github.com/spf13/cobra"
)

// DemoOptions are the flags of `patience demo`.
type DemoOptions struct{}

// NewCmdDemo builds `patience demo`. Placeholder until its issue lands.
func NewCmdDemo(f *Factory, runF func(*DemoOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:    "demo",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("demo is not built yet")
		},
	}
}
