package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"kgforge/bundle"
)

// TestReview_OverridesInsideTheBundleIsAUsageError: `kgforge review` with
// --overrides inside the bundle it reviews (here through the output
// directory's latest link) exits 2 before it listens, and the bundle is
// left as it was.
func TestReview_OverridesInsideTheBundleIsAUsageError(t *testing.T) {
	out := t.TempDir()
	dir := writeBundle(t, out, "b1")
	overrides := filepath.Join(out, bundle.LatestLink, "overrides.yaml")
	// Cancelled: were the file taken, the page would stop at once instead
	// of serving.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code := run(ctx, []string{"review", "--bundle", out, "--overrides", overrides, "--addr", "127.0.0.1:0"}); code != exitUsage {
		t.Errorf("review --overrides %s: exit code %d, want %d", overrides, code, exitUsage)
	}
	if _, err := os.Stat(filepath.Join(dir, "overrides.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an overrides file was written into the bundle: %v", err)
	}
	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatalf("the bundle is no longer valid: %v", err)
	}
	_ = b.Close()
}
