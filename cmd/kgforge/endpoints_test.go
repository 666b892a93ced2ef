package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/llm"
	"kgforge/stages"
)

func TestValidate_CountsTheEndpointsAndRefusesABadOne(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	raw := "name: x\nsources: [{name: d, paths: ['*.md']}]\nllm:\n  endpoints:\n    - {url: 'h1:11434', slots: 4}\n    - {url: 'http://h2:11434', slots: 2}\n"
	if err := os.WriteFile(good, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCaptured(t, "", "validate", good); code != exitOK || !strings.Contains(out, "llm: 2 endpoints, 6 slots") {
		t.Errorf("exit %d, stdout %q, stderr %q; want the endpoints and their slots", code, out, errOut)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(raw, "slots: 2", "slots: 0", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCaptured(t, "", "validate", bad); code != exitUsage || !strings.Contains(errOut, "llm.endpoints[1].slots: 0: must be between 1 and 64") {
		t.Errorf("exit %d, stderr %q; want 2 and the field", code, errOut)
	}
}

func TestSummaryHasALinePerEndpoint(t *testing.T) {
	r := &stages.Report{Endpoints: []stages.EndpointReport{
		{EndpointUsage: llm.EndpointUsage{URL: "http://a:1", Slots: 4, Calls: 10, PromptTokens: 900, CompletionTokens: 200}, BusyShare: 0.934},
		{EndpointUsage: llm.EndpointUsage{URL: "http://b:1", Slots: 2, Calls: 3, Failures: 2, Out: "connection refused"}},
	}}
	got := summary(r)
	for _, want := range []string{
		"  endpoint:  http://a:1 (4 slots): 10 calls, 900 prompt + 200 completion tokens, 0 failures, busy 93%\n",
		"  endpoint:  http://b:1 (2 slots): 3 calls, 0 prompt + 0 completion tokens, 2 failures, busy 0%; out: connection refused\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}
