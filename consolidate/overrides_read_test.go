package consolidate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadOverrides_RefusesAFileOverTheSizeLimit: an overrides file over
// MaxOverridesBytes is refused before it is decoded, naming the file, its
// size and the limit; one under it still loads.
func TestLoadOverrides_RefusesAFileOverTheSizeLimit(t *testing.T) {
	dir := t.TempDir()
	entry := "  - {a: Acme Corporation, b: ACME Corp, by: expert, note: same company}\n"
	small := "must_link:\n" + entry
	big := "must_link:\n" + strings.Repeat(entry, MaxOverridesBytes/len(entry)+1)
	for name, body := range map[string]string{"small.yaml": small, "big.yaml": big} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if o, err := LoadOverrides(filepath.Join(dir, "small.yaml")); err != nil || len(o.MustLink) != 1 {
		t.Fatalf("small file: %+v, %v; want its one must_link", o, err)
	}
	path := filepath.Join(dir, "big.yaml")
	_, err := LoadOverrides(path)
	want := fmt.Sprintf("read overrides %s: %d bytes, over the limit of %d bytes (4 MiB) for an overrides file", path, len(big), MaxOverridesBytes)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("big file: %v\nwant an error with %q", err, want)
	}
}
