package stages

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/llm"
	"kgforge/pipelines"
)

// closedServer is an Ollama address where nothing listens.
const closedServer = "127.0.0.1:1"

// noServerPipeline writes files and a pipeline over them that embeds and
// judges entities, and returns the pipeline with a client for an Ollama
// server that is not there.
func noServerPipeline(t *testing.T, files map[string]string, sources string) (*pipelines.Pipeline, *llm.Client) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pf := filepath.Join(dir, "p.yaml")
	raw := "name: noserver\nsources:\n" + sources + "resolve: {embeddings: true, llm_judge: true}\n"
	if err := os.WriteFile(pf, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := pipelines.Load(pf)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("OLLAMA_HOST", closedServer)
	c, err := llm.New(llm.Options{BaseDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return p, c
}

// TestRunner_BuildThatNeedsNoModelNeedsNoServer builds tables, and a
// document of headings only (no sentence to ask the model about), with
// embeddings and the judge on and no Ollama server: nothing needs a model,
// so the build asks none and gives a bundle.
func TestRunner_BuildThatNeedsNoModelNeedsNoServer(t *testing.T) {
	cases := map[string]struct {
		files   map[string]string
		sources string
		chunks  int
	}{
		"tables only": {
			files:   map[string]string{"data/parts.csv": "part_id,name\nP1,Frame\nP2,Wheel\n"},
			sources: "  - {name: tables, paths: [\"data/*.csv\"]}\n",
		},
		"tables and a document of headings": {
			files: map[string]string{
				"data/parts.csv": "part_id,name\nP1,Frame\nP2,Wheel\n",
				"docs/toc.md":    "# Suppliers\n\n## Frames\n",
			},
			sources: "  - {name: tables, paths: [\"data/*.csv\"]}\n  - {name: docs, paths: [\"docs/*.md\"]}\n",
			chunks:  2, // one per section
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, c := noServerPipeline(t, tc.files, tc.sources)
			out := t.TempDir()
			rep, err := (&Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out}).Run(context.Background(), p)
			if err != nil {
				t.Fatalf("build without a server: %v", err)
			}
			if rep.Status != StatusOK || rep.Tables != 1 || rep.Chunks != tc.chunks || rep.Extract.Skipped != tc.chunks || rep.LLM.Calls != 0 {
				t.Errorf("report: status %s, %d tables, %d chunks (%d skipped), %d LLM calls; want ok, 1, %d, %d, 0",
					rep.Status, rep.Tables, rep.Chunks, rep.Extract.Skipped, rep.LLM.Calls, tc.chunks, tc.chunks)
			}
			b, err := bundle.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = b.Close() }()
			if b.Manifest.Counts["rows:parts"] != 2 {
				t.Errorf("bundle counts %v; want table parts with 2 rows", b.Manifest.Counts)
			}
			if chat := b.Manifest.Models["chat"]; chat.Name != p.LLM.ChatModel || chat.Digest != "" {
				t.Errorf("manifest chat model %+v; want %s with no digest (never asked)", chat, p.LLM.ChatModel)
			}
			if _, ok := b.Manifest.Models["embed"]; ok {
				t.Errorf("manifest names an embedding model the build never used: %+v", b.Manifest.Models)
			}
		})
	}
}

// TestRunner_TextWithoutServerFailsNamingIt builds a document with a
// sentence and no Ollama server: the build fails, says which server it
// could not reach and how to start one, and publishes nothing.
func TestRunner_TextWithoutServerFailsNamingIt(t *testing.T) {
	p, c := noServerPipeline(t, map[string]string{
		"data/parts.csv": "part_id,name\nP1,Frame\n",
		"docs/a.md":      "# Suppliers\nVelora Cycles buys frames from Kestrel Alloys.\n",
	}, "  - {name: tables, paths: [\"data/*.csv\"]}\n  - {name: docs, paths: [\"docs/*.md\"]}\n")
	out := t.TempDir()
	_, err := (&Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out}).Run(context.Background(), p)
	if err == nil {
		t.Fatal("a build with text and no server succeeded")
	}
	for _, want := range []string{"chat model " + p.LLM.ChatModel, "list models on http://" + closedServer, "is Ollama running?"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, err := bundle.Open(out); err == nil {
		t.Error("the failed build published a bundle")
	}
}

// TestRunner_MissingEmbeddingModelFailsBeforeExtraction names an embedding
// model the server lacks: the build fails at its first chunk, naming that
// model, before it asks the chat model anything.
func TestRunner_MissingEmbeddingModelFailsBeforeExtraction(t *testing.T) {
	c, chats := fakeOllama(t, false)
	p, _ := sixDocs(t)
	on := true
	p.Resolution.Embeddings, p.LLM.EmbedModel = &on, "no-such-embedder"
	_, err := (&Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir()}).Run(context.Background(), p)
	if !errors.Is(err, llm.ErrModelMissing) || !strings.Contains(err.Error(), "no-such-embedder") {
		t.Fatalf("err = %v; want ErrModelMissing naming no-such-embedder", err)
	}
	if n := chats.Load(); n != 0 {
		t.Errorf("%d chats before the missing model was found", n)
	}
}
