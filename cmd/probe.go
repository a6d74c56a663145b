package cmd

import (
	"errors"

	"github.com/spf13/cobra"
)

// ProbeOptions are the flags of `patience probe`.
type ProbeOptions struct{}

// NewCmdProbe builds `patience probe`. Placeholder until its issue lands.
func NewCmdProbe(f *Factory, runF func(*ProbeOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:    "probe",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("probe is not built yet")
		},
	}
}
