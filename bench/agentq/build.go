package main

import (
	"context"
	"encoding/json"
	"os"

	"kgforge/bench/internal/sqlqa"
	"kgforge/llm"
)

// buildBundle builds the bundle of one source directory with kgforge's
// own runner, once: a directory built before is opened as it is.
func buildBundle(ctx context.Context, o options, client *llm.Client, src string) (string, error) {
	return sqlqa.BuildBundle(ctx, sqlqa.Build{Model: o.model, Extract: o.extract}, client, src)
}

func writeJSON(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}
