package prompts

import (
	"testing"
)

func TestLoad_EmbeddedPromptsRenderAndHaveStableVersions(t *testing.T) {
	for _, name := range Names() {
		p, err := Load(name)
		if err != nil {
			t.Fatalf("Load(%q): %v", name, err)
		}
		if len(p.Version) != 12 {
			t.Errorf("%s: version %q, want 12 hex digits", name, p.Version)
		}
		again, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if again.Version != p.Version {
			t.Errorf("%s: version changed between loads: %s vs %s", name, p.Version, again.Version)
		}
	}
}

func TestParse_VersionFollowsText(t *testing.T) {
	a, err := Parse("a", "hello {{.X}}")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse("a", "hello  {{.X}}")
	if err != nil {
		t.Fatal(err)
	}
	if a.Version == b.Version {
		t.Errorf("different texts share version %s", a.Version)
	}
}

func TestPrompt_RenderMissingKeyIsError(t *testing.T) {
	p, err := Load("extract.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.RenderPart("instruction", map[string]string{}); err == nil {
		t.Error("Render with no Text: want error, got nil")
	}
	if _, err := p.RenderPart("no_such_part", nil); err == nil {
		t.Error("RenderPart of an unknown part: want error")
	}
	got, err := p.RenderPart("instruction", map[string]string{"Text": "Velora buys frames."})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Velora buys frames."; !contains(got, want) {
		t.Errorf("rendered prompt lacks the passage %q", want)
	}
}

func TestExtract_HasEveryPart(t *testing.T) {
	p, err := Load("extract.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	type vocab struct {
		EntityTypes   []struct{ Name, Description string }
		RelationTypes []struct{ Name, Description, Domain, Range string }
	}
	parts := []struct {
		name string
		data any
	}{
		{"system", vocab{}},
		{"instruction", map[string]string{"Text": "x"}},
		{"glean", nil},
	}
	for _, part := range parts {
		if _, err := p.RenderPart(part.name, part.data); err != nil {
			t.Errorf("part %s: %v", part.name, err)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestPrompt_PartsListsTheExtractionExamples(t *testing.T) {
	p, err := Load("extract_examples.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	got := p.Parts("example_")
	if len(got) < 3 {
		t.Fatalf("Parts(example_) = %v, want at least three worked examples", got)
	}
	for _, n := range got {
		if _, err := p.RenderPart(n, nil); err != nil {
			t.Errorf("part %s: %v", n, err)
		}
	}
}
