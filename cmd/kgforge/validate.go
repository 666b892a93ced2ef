package main

import (
	"fmt"

	"kgforge/pipelines"

	"github.com/spf13/cobra"
)

// validateCmd is `kgforge validate PIPELINE`: the checks a build makes of
// its pipeline file, without building. Exit 0 valid, 2 invalid.
func validateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate PIPELINE",
		Short: "Check a pipeline file: strict decoding, ${VAR} expansion, every problem at once with its field; exit 0 valid, 2 invalid",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(_ *cobra.Command, args []string) error {
			p, err := pipelines.Load(args[0])
			if err != nil {
				return usageError(err)
			}
			llmPart := ""
			if n := len(p.LLM.Endpoints); n > 0 {
				llmPart = fmt.Sprintf(", llm: %d endpoints, %d slots", n, p.LLM.Slots())
			}
			fmt.Print(termText(fmt.Sprintf("ok: pipeline %s (%s): %d sources, gates: %d%s\n", p.Name, args[0], len(p.Sources), p.Gates.Count(), llmPart)))
			return nil
		},
	}
}
