package extract

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/kg"
	"kgforge/llm"
)

// specialistManifest is the part of models/kgforge-extract/manifest.json
// the tests read.
type specialistManifest struct {
	Prompt string `json:"prompt"`
	Base   struct {
		SHA256 string `json:"sha256"`
	} `json:"base"`
	Adapter struct {
		File   string `json:"file"`
		SHA256 string `json:"sha256"`
	} `json:"adapter"`
	Merged struct {
		SHA256 string `json:"sha256"`
	} `json:"merged"`
}

func readSpecialistManifest(t *testing.T) (specialistManifest, string) {
	t.Helper()
	dir := filepath.Join("..", "models", "kgforge-extract")
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m specialistManifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m, dir
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestSpecialistManifest_DescribesTheCommittedAdapter: the adapter in the
// repository is the one its manifest names, trained on the prompt this
// package sends, and the manifest records the merged GGUF's digest that
// set-up checks.
func TestSpecialistManifest_DescribesTheCommittedAdapter(t *testing.T) {
	m, dir := readSpecialistManifest(t)
	if got := fileSHA256(t, filepath.Join(dir, m.Adapter.File)); got != m.Adapter.SHA256 {
		t.Errorf("adapter sha256 %s, manifest says %s", got, m.Adapter.SHA256)
	}
	if m.Prompt != SpecialistPrompt {
		t.Errorf("manifest prompt %q, want %q", m.Prompt, SpecialistPrompt)
	}
	if len(m.Merged.SHA256) != 64 || len(m.Base.SHA256) != 64 {
		t.Errorf("manifest lacks the base or merged sha256: %+v", m)
	}
}

// TestSpecialistMergeIntegration rebuilds kgforge-extract's GGUF from the
// base model and the committed adapter with numpy and gguf alone (the venv
// scripts/ollama.sh made) and wants the digest the manifest records.
func TestSpecialistMergeIntegration(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set; run make test")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	py := filepath.Join(cache, "kgforge", "merge-venv", "bin", "python")
	base := filepath.Join(cache, "kgforge", "models", "gemma3-270m", "gemma-3-270m-q4_k_m.gguf")
	for _, p := range []string{py, base} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%v: scripts/ollama.sh models sets this up", err)
		}
	}
	m, dir := readSpecialistManifest(t)
	out := filepath.Join(t.TempDir(), "merged.gguf")
	cmd := exec.Command(py, filepath.Join("..", "scripts", "merge_adapter.py"), "--base", base, "--adapter", dir, "--out", out, "--check")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("merge: %v\n%s", err, b)
	}
	if got := fileSHA256(t, out); got != m.Merged.SHA256 {
		t.Errorf("merged sha256 %s, manifest says %s", got, m.Merged.SHA256)
	}
	if torch := exec.Command(py, "-c", "import torch"); torch.Run() == nil {
		t.Error("the merge venv has torch; set-up must not need it")
	}
}

// TestExtractor_SpecialistIntegration asks the real kgforge-extract,
// driven as extract.mode auto resolves it, for the facts of one passage
// and wants the fact it states: the company and the city it is based in.
func TestExtractor_SpecialistIntegration(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set; run make test")
	}
	ctx := context.Background()
	c, err := llm.New(llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	info, err := c.Info(ctx, llm.ExtractModelForTests)
	if err != nil {
		t.Fatal(err)
	}
	if ModeFor(info) != ModeSpecialist {
		t.Fatalf("ModeFor(%+v) = %s, want specialist", info, ModeFor(info))
	}
	digests, err := c.ModelDigests(ctx, llm.ExtractModelForTests)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := New(c, nil, Options{Model: llm.ExtractModelForTests, ModelDigest: digests[llm.ExtractModelForTests], Mode: ModeSpecialist})
	if err != nil {
		t.Fatal(err)
	}
	text := "Tarnow Metals Ltd is based in Leipzig, Germany. Tarnow Metals Ltd supplies steel tubes to Orvika Bikes."
	res, err := ex.Process(ctx, kg.Chunk{ID: "integration-specialist", SourceID: "s", Text: text, Span: kg.Span{End: len(text)}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tr := range res.Triplets {
		t.Logf("kept %s | %s | %s | %s | %s", tr.Subject.Surface, tr.Subject.Type, tr.Predicate, tr.Object.Surface, tr.Object.Type)
		if tr.Subject.Surface == "Tarnow Metals Ltd" && tr.Object.Surface == "Leipzig" && strings.Contains(strings.ToLower(tr.Predicate), "based") {
			found = true
		}
	}
	if !found {
		t.Errorf("no kept fact Tarnow Metals Ltd | based in | Leipzig among %d (stats %+v)", len(res.Triplets), ex.Stats())
	}
}
