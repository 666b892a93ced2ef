package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidate_ExitCodesAndEveryProblem: a valid file exits 0, an invalid
// one 2 with each problem on its own line, named by field path, unknown
// keys and unset variables included.
func TestValidate_ExitCodesAndEveryProblem(t *testing.T) {
	code, out, errOut := runCaptured(t, "", "validate", "../../pipelines/example.yaml")
	if code != exitOK || !strings.Contains(out, "ok: pipeline bikeco-example") {
		t.Errorf("example: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	raw := "name: x\nsources:\n  - {name: erp, kind: postgres, connection_env: '${KGFORGE_VALIDATE_TEST_UNSET}'}\nllm: {concurrency: 0, modle: x}\n"
	if err := os.WriteFile(bad, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCaptured(t, "", "validate", bad)
	if code != exitUsage || out != "" {
		t.Errorf("bad: exit %d (want %d), stdout %q", code, exitUsage, out)
	}
	for _, want := range []string{
		"sources[0].connection_env: \"${KGFORGE_VALIDATE_TEST_UNSET}\": environment variable KGFORGE_VALIDATE_TEST_UNSET is not set",
		"\nllm.modle: modle: unknown field \"modle\"",
		"\nllm.concurrency: 0: must be between 1 and 64",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if code, _, _ := runCaptured(t, "", "validate"); code != exitUsage {
		t.Errorf("no argument: exit %d, want %d", code, exitUsage)
	}
}
