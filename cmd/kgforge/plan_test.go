package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBuildPlan_TablesNeedNoServerAndWriteNothing plans a built pipeline
// of tables with OLLAMA_HOST on a closed port: exit 0, one unchanged
// source, nothing to send to the model, and the output directory as it was.
func TestBuildPlan_TablesNeedNoServerAndWriteNothing(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	pf, out := tablesPipeline(t), t.TempDir()
	writeOld(t, filepath.Join(filepath.Dir(pf), "parts.csv"), "part_id,name\nP1,Frame\nP2,Wheel\n") // the file index vouches for an old file only
	if code, _, stderr := runCaptured(t, "", "build", "-p", pf, "-o", out); code != exitOK {
		t.Fatalf("build: exit %d\n%s", code, stderr)
	}
	before := countFiles(t, out)
	code, stdout, stderr := runCaptured(t, "", "build", "-p", pf, "-o", out, "--plan")
	if code != exitOK {
		t.Fatalf("plan: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"0 added, 0 changed, 1 unchanged, 0 removed; 0 to read", "source 0/1", "nothing to send to the model"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("plan does not say %q:\n%s", want, stdout)
		}
	}
	if after := countFiles(t, out); after != before {
		t.Errorf("the plan wrote into the output: %d files, then %d", before, after)
	}
}

// writeOld writes body to path dated an hour ago, so the file index may
// vouch for it.
func writeOld(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}
