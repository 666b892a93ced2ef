package consolidate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOverrides_RoundTripAndDecisions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "overrides.yaml")
	o, err := LoadOverrides(path)
	if err != nil || len(o.MustLink)+len(o.CannotLink)+len(o.KeepApart)+len(o.Rename) != 0 {
		t.Fatalf("a missing file: %+v, %v; want no overrides", o, err)
	}
	o.Accept("Porto plant", "Porto factory", Decision{By: "ana"})
	o.Accept("Acme", "ACME Inc.", Decision{By: "ana"})
	o.Split("Apple", Decision{By: "rui", Note: "fruit vs company"})
	o.Rename = append(o.Rename, Rename{Member: "ACME", To: "ACME Corporation"})
	// Rejecting a pair replaces the earlier acceptance of the same pair,
	// whatever the order and case of its names.
	o.Reject("porto FACTORY", "Porto plant", Decision{By: "rui"})
	o.Reject("Station 1", "Station 2", Decision{By: "rui"})
	if err := o.Save(path); err != nil {
		t.Fatal(err)
	}
	bad := &Overrides{}
	bad.Reject("Porto", "porto", Decision{})
	if err := bad.Save(filepath.Join(t.TempDir(), "bad.yaml")); err == nil {
		t.Error("saved a cannot_link of a name with itself")
	}
	raw, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(raw), "# kgforge merge overrides") {
		t.Errorf("no header:\n%s", raw)
	}
	got, err := LoadOverrides(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.MustLink) != 1 || got.MustLink[0].B != "ACME Inc." || len(got.CannotLink) != 2 ||
		got.CannotLink[0].A != "porto FACTORY" || got.CannotLink[0].By != "rui" || got.CannotLink[0].At == "" ||
		len(got.KeepApart) != 1 || got.KeepApart[0].Note != "fruit vs company" || len(got.Rename) != 1 {
		t.Errorf("read back %+v", got)
	}
	r := got.Resolve()
	if len(r.MustLink) != 1 || len(r.CannotLink) != 2 || len(r.KeepApart) != 1 || r.Rename[0].Name != "ACME Corporation" {
		t.Errorf("as resolver overrides: %+v", r)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left beside the overrides: %v", entries)
	}
}

func TestOverrides_BadFiles(t *testing.T) {
	cases := map[string]string{
		"unknown field":  "must_link:\n  - {a: x, b: y, reason: z}\n",
		"contradiction":  "must_link:\n  - {a: Station 1, b: Station 2}\ncannot_link:\n  - {a: station 2, b: STATION 1}\n",
		"empty name":     "keep_apart:\n  - {name: \"\"}\n",
		"rename no to":   "rename:\n  - {member: x}\n",
		"not yaml":       "must_link: [\n",
		"self link":      "must_link:\n  - {a: Porto, b: porto}\n",
		"missing b":      "cannot_link:\n  - {a: x}\n",
		"wrong top type": "- a\n- b\n",
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "o.yaml")
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadOverrides(path)
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("error = %v; want one naming %s", err, path)
			}
		})
	}
}
