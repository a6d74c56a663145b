package cmd

import (
	"errors"

	"github.com/spf13/cobra"
)

// ServeOptions are the flags of `patience serve`.
type ServeOptions struct{}

// NewCmdServe builds `patience serve`. Placeholder until its issue lands.
func NewCmdServe(f *Factory, runF func(*ServeOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:    "serve",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("serve is not built yet")
		},
	}
}
