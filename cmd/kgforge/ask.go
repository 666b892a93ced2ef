package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"kgforge/agent"
	"kgforge/internal/duck"
	"kgforge/llm"

	"github.com/spf13/cobra"
)

func askCmd(*globals) *cobra.Command {
	var (
		dir, model string
		steps      int
		asJSON     bool
		lim        duck.SandboxLimits
	)
	cmd := &cobra.Command{
		Use:   `ask --bundle DIR "question"`,
		Short: "Answer a question over a bundle with ls, cat and read-only SQL tools",
		Args:  usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			b, err := openBundle(dir)
			if err != nil {
				return err
			}
			defer func() { err = errors.Join(err, b.Close()) }()
			if model == "" {
				model = b.Manifest.Models["chat"].Name
			}
			client, err := llm.New(llm.Options{})
			if err != nil {
				return usageError(err)
			}
			defer client.Close()
			if _, err := client.ModelDigests(cmd.Context(), model); err != nil {
				return err
			}
			a, err := agent.New(cmd.Context(), client, model, b, steps, lim)
			if err != nil {
				return sandboxError(err)
			}
			defer func() { err = errors.Join(err, a.Close()) }()
			ans, err := a.Ask(cmd.Context(), strings.Join(args, " "))
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(ans)
			}
			for i, s := range ans.Steps {
				if s.Tool == agent.ToolAnswer {
					continue
				}
				fmt.Printf("[%d] %s %s\n", i+1, s.Tool, s.Arg)
				for _, line := range strings.Split(s.Result, "\n") {
					fmt.Printf("    %s\n", line)
				}
			}
			fmt.Printf("answer: %s\n", ans.Text)
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "bundle", "b", "", "bundle directory, or an output directory with a latest link")
	cmd.Flags().StringVar(&model, "model", "", "chat model (default: the bundle's)")
	cmd.Flags().IntVar(&steps, "max-steps", 8, "most tool calls per question")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the answer and the tool calls as JSON")
	sandboxFlags(cmd, &lim)
	return cmd
}
