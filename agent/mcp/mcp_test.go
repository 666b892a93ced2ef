package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/agent"
	"kgforge/agent/mcp"
	"kgforge/bundle"
	"kgforge/internal/duck"
	"kgforge/kg"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// testBundle writes a small bundle: one data table, one node, one chunk.
func testBundle(t *testing.T) string {
	t.Helper()
	out := t.TempDir()
	w, err := bundle.Create(out, "b1")
	if err != nil {
		t.Fatal(err)
	}
	db, err := w.Data(context.Background(), duck.Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE suppliers AS SELECT * FROM (VALUES ('S001', 'Kestrel Alloys', 'frames')) t(supplier_id, name, part_category)"); err != nil {
		t.Fatal(err)
	}
	text := "Kestrel Alloys makes the frames."
	contents := bundle.Contents{
		Graph:   kg.Graph{Nodes: []kg.Node{{ID: "n1", Name: "Kestrel Alloys", Kind: kg.NodeConcept, Labels: []string{"Entity"}}}},
		Tables:  []kg.Table{{Name: "suppliers", Columns: []kg.Column{{Name: "supplier_id"}, {Name: "name"}}}},
		Sources: []kg.Source{{ID: "s1", URI: "docs/note.md", Kind: "markdown"}},
		Chunks:  []kg.Chunk{{ID: "c1", SourceID: "s1", Text: text, Span: kg.Span{End: len(text)}}},
	}
	if _, err := w.Commit(contents, bundle.Manifest{}); err != nil {
		t.Fatal(err)
	}
	return out
}

func toolbox(t *testing.T, dir string) *agent.Toolbox {
	t.Helper()
	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	tb, err := agent.NewToolbox(context.Background(), b, duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tb.Close() })
	return tb
}

func text(r *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// checkSession lists the tools and calls ls, query and a refused query
// through the official client.
func checkSession(ctx context.Context, t *testing.T, cs *sdk.ClientSession, want []agent.Tool) {
	t.Helper()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != len(want) {
		t.Fatalf("server lists %d tools, the toolbox has %d", len(list.Tools), len(want))
	}
	byName := map[string]agent.Tool{}
	for _, tool := range want {
		byName[tool.Name] = tool
	}
	for _, tool := range list.Tools {
		w, ok := byName[tool.Name]
		if !ok || tool.Description != w.Description || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint ||
			tool.Annotations.OpenWorldHint == nil || *tool.Annotations.OpenWorldHint {
			t.Errorf("tool %s: %+v (annotations %+v), want a toolbox tool, read-only, closed world", tool.Name, tool, tool.Annotations)
		}
		delete(byName, tool.Name)
	}
	ls, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: agent.ToolLs, Arguments: map[string]any{}})
	if err != nil || ls.IsError || !strings.Contains(text(ls), "suppliers") {
		t.Errorf("ls: %v, %+v", err, ls)
	}
	q, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: agent.ToolQuery, Arguments: map[string]any{"sql": "SELECT name FROM suppliers WHERE part_category = 'frames'"}})
	if err != nil || q.IsError || !strings.Contains(text(q), "Kestrel Alloys") {
		t.Errorf("query: %v, %+v", err, q)
	}
	bad, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: agent.ToolQuery, Arguments: map[string]any{"sql": "DROP TABLE suppliers"}})
	if err != nil || !bad.IsError || !strings.Contains(text(bad), "sql_error") || !strings.Contains(text(bad), "read-only SELECT") {
		t.Errorf("a refused query: %v, %+v; want a tool error that says how to call right", err, bad)
	}
}

func TestMCPStdio_OfficialClientListsAndCallsTheToolsOfTheBuiltBinary(t *testing.T) {
	ctx := context.Background()
	bin := filepath.Join(t.TempDir(), "kgforge")
	if out, err := exec.Command("go", "build", "-o", bin, "kgforge/cmd/kgforge").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := testBundle(t)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(bin, "mcp", "--bundle", dir)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if got := cs.InitializeResult().ServerInfo.Name; got != "kgforge" {
		t.Errorf("server name %q", got)
	}
	checkSession(ctx, t, cs, toolbox(t, dir).Tools())
}

func TestMCPHTTP_ServesTheToolsAndRefusesAForeignHostOrOrigin(t *testing.T) {
	ctx := context.Background()
	tb := toolbox(t, testBundle(t))
	srv := httptest.NewServer(mcp.Handler(mcp.NewServer(tb, "test", mcp.Limits{})))
	t.Cleanup(srv.Close)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	checkSession(ctx, t, cs, tb.Tools())

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	cases := []struct {
		name, host, origin string
		status             int
	}{
		{"loopback", "", "", http.StatusOK},
		{"same origin", "", srv.URL, http.StatusOK},
		{"rebinding name", "evil.example:80", "", http.StatusForbidden},
		{"another origin", "", "http://evil.example", http.StatusForbidden},
	}
	for _, c := range cases {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.host != "" {
			req.Host = c.host
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.status)
		}
	}
}

func TestCheckListen_RefusesANonLoopbackAddressUnlessTold(t *testing.T) {
	cases := []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:8765", false, true},
		{"[::1]:8765", false, true},
		{"localhost:8765", false, true},
		{"0.0.0.0:8765", false, false},
		{"192.168.1.5:8765", false, false},
		{"example.org:8765", false, false},
		{"8765", false, false},
		{"0.0.0.0:8765", true, true},
	}
	for _, c := range cases {
		if err := mcp.CheckListen(c.addr, c.remote); (err == nil) != c.ok {
			t.Errorf("CheckListen(%q, %v) = %v, want ok %v", c.addr, c.remote, err, c.ok)
		}
	}
}
