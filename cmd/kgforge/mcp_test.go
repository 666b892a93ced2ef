package main

import (
	"context"
	"testing"
)

func TestMCP_NonLoopbackHTTPAddressIsAUsageErrorUnlessAllowed(t *testing.T) {
	dir := t.TempDir()
	if code := run(context.Background(), []string{"mcp", "--bundle", dir, "--http", "0.0.0.0:0"}); code != exitUsage {
		t.Errorf("--http 0.0.0.0:0: exit code %d, want %d", code, exitUsage)
	}
	// Allowed, it gets past the check to the empty directory.
	if code := run(context.Background(), []string{"mcp", "--bundle", dir, "--http", "0.0.0.0:0", "--allow-remote"}); code != exitFailed {
		t.Errorf("--http 0.0.0.0:0 --allow-remote: exit code %d, want %d", code, exitFailed)
	}
}

func TestMCP_CallLimitsBelowOneAreAUsageError(t *testing.T) {
	dir := t.TempDir()
	for _, flag := range []string{"--session-calls=0", "--total-calls=-1"} {
		if code := run(context.Background(), []string{"mcp", "--bundle", dir, flag}); code != exitUsage {
			t.Errorf("%s: exit code %d, want %d", flag, code, exitUsage)
		}
	}
}
