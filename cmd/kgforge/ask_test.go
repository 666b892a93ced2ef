package main

import (
	"context"
	"testing"
)

func TestAsk_BadFormatOrBudgetIsAUsageError(t *testing.T) {
	cases := map[string][]string{
		"unknown format": {"ask", "--bundle", t.TempDir(), "--format", "xml", "q"},
		"zero budget":    {"ask", "--bundle", t.TempDir(), "--budget", "0", "q"},
		"negative steps": {"ask", "--bundle", t.TempDir(), "--max-steps", "-1", "q"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			if code := run(context.Background(), args); code != exitUsage {
				t.Errorf("exit code = %d, want %d", code, exitUsage)
			}
		})
	}
	// The same flags, right, get past the check to the empty directory.
	if code := run(context.Background(), []string{"ask", "--bundle", t.TempDir(), "--format", "json", "--budget", "3", "q"}); code != exitFailed {
		t.Errorf("ask of an empty directory: exit code %d, want %d", code, exitFailed)
	}
}
