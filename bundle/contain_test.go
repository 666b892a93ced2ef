package bundle

import (
	"os"
	"path/filepath"
	"testing"
)

// TestContaining names paths in, below, beside and through links into a
// real bundle, and in a directory whose manifest.json is not a bundle's.
func TestContaining(t *testing.T) {
	out := t.TempDir()
	dir := write(t, out, "b", sample())
	other := filepath.Join(out, "model")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, ManifestFile), []byte(`{"format":"gguf-adapter"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path, want string }{
		{"a file of the bundle", filepath.Join(dir, ManifestFile), dir},
		{"a new file in it", filepath.Join(dir, "x.prom"), dir},
		{"below a directory not there", filepath.Join(dir, "no", "such", "x.prom"), dir},
		{"through latest", filepath.Join(out, LatestLink, "x.prom"), dir},
		{"beside the bundles", filepath.Join(out, "x.prom"), ""},
		{"another manifest", filepath.Join(other, ManifestFile), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Containing(tc.path)
			want := tc.want
			if want != "" {
				want, _ = filepath.EvalSymlinks(want)
			}
			if err != nil || got != want {
				t.Errorf("Containing(%s) = %q, %v; want %q", tc.path, got, err, want)
			}
		})
	}
}
