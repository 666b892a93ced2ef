package extract

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/kg"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestExtractor_RenderedConversation pins the conversation the model gets,
// free and with a schema.
func TestExtractor_RenderedConversation(t *testing.T) {
	cases := []struct {
		name   string
		schema Schema
	}{
		{"free", Schema{}},
		{"schema", Schema{
			EntityTypes: []EntityType{{Name: "Company", Description: "a business"}, {Name: "City"}},
			RelationTypes: []RelationType{
				{Name: "located_in", Description: "has its seat in", Domain: "Company", Range: "City"},
				{Name: "partner_of"},
			},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := &scripted{replies: []string{`{"triplets":[],"entities":[]}`}}
			ex, err := New(fake, nil, Options{Model: "m", Schema: tc.schema})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ex.Process(context.Background(), kg.Chunk{ID: "c", Text: velora}); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, m := range fake.reqs[0].Messages {
				b.WriteString("--- " + m.Role + "\n" + m.Content + "\n")
			}
			b.WriteString("--- schema\n" + string(fake.reqs[0].Schema) + "\n")
			path := filepath.Join("testdata", "conversation-"+tc.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./extract -run RenderedConversation -update)", err)
			}
			if b.String() != string(want) {
				t.Errorf("conversation differs from %s (rerun with -update if intended):\n%s", path, b.String())
			}
		})
	}
}
