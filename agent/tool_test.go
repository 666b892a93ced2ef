package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"kgforge/internal/duck"
)

func TestToolbox_FailedCallsSayHowToCallRight(t *testing.T) {
	ctx := context.Background()
	tb, err := NewToolbox(ctx, testBundle(t), duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tb.Close() })
	cases := []struct {
		tool, args, kind, says string
	}{
		{"grepp", `{}`, FailUnknownTool, "the tools are ls, cat"},
		{ToolQuery, `{"statement":"SELECT 1"}`, FailMalformed, `"sql"`},
		{ToolQuery, `"SELECT 1"`, FailMalformed, "schema"},
		{ToolQuery, `{"sql":"DROP TABLE nodes"}`, FailSQL, "read-only SELECT"},
		{ToolCat, `{"name":"../etc/passwd"}`, FailNotFound, "ls lists"},
	}
	for _, tc := range cases {
		_, err := tb.Call(ctx, tc.tool, json.RawMessage(tc.args))
		var ce *CallError
		if !errors.As(err, &ce) || ce.Kind != tc.kind || !strings.Contains(ce.Error(), tc.says) {
			t.Errorf("%s %s: err = %v, want a %s call error saying %q", tc.tool, tc.args, err, tc.kind, tc.says)
		}
	}
	out, err := tb.Call(ctx, ToolQuery, json.RawMessage(`{"sql":"SELECT range AS n FROM range(100)"}`))
	if err != nil || !strings.Contains(out, "first 50 rows") || strings.Count(out, "\n") != 51 {
		t.Errorf("100-row query: %q, %v; want 50 rows and a note", out, err)
	}
}

func TestCut_KeepsRunesWholeAndSaysSo(t *testing.T) {
	s := strings.Repeat("é", 10) // 20 bytes
	got := cut(s, 5)
	if !strings.HasPrefix(got, "éé\n") || !strings.Contains(got, "4 of 20 bytes") {
		t.Errorf("cut = %q", got)
	}
	if cut("short", 10) != "short" {
		t.Error("cut changed a short string")
	}
}
