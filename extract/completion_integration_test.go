package extract

import (
	"context"
	"slices"
	"testing"

	"kgforge/kg"
	"kgforge/llm"
)

// TestExtractor_CompletionModeIntegration runs the completion mode on the
// real base model, in both formats, on a short passage: the raw call
// succeeds and its reply parses (the line format never fails to parse; the
// JSON one follows the schema's grammar). It asserts on structure, not on
// what the model knows: every kept triplet's evidence is a sentence of the
// passage, and every fact line is kept, dropped by a reason or counted
// malformed.
func TestExtractor_CompletionModeIntegration(t *testing.T) {
	ctx := context.Background()
	c, digest := realModel(t)
	text := "Kestrel Alloys is based in Sheffield. Velora Cycles buys frames from Kestrel Alloys."
	chunk := kg.Chunk{ID: "integration-completion", SourceID: "s", Text: text, Span: kg.Span{End: len(text)}}
	for _, f := range []Format{FormatLines, FormatJSON} {
		t.Run(string(f), func(t *testing.T) {
			ex, err := New(c, nil, Options{
				Model: llm.ChatModelForTests, ModelDigest: digest,
				Mode: ModeCompletion, Format: f, NumPredict: 160,
			})
			if err != nil {
				t.Fatal(err)
			}
			res, err := ex.Process(ctx, chunk)
			if err != nil {
				t.Fatalf("completion %s: %v", f, err)
			}
			st := ex.Stats()
			if st.Calls < 1 || st.Chunks != 1 {
				t.Errorf("stats %+v", st)
			}
			for _, tr := range res.Triplets {
				if !slices.Contains(Sentences(text), tr.Evidence) || tr.PromptVersion != ex.PromptVersion() {
					t.Errorf("kept %+v: evidence is not a sentence of the passage", tr)
				}
			}
			t.Logf("%s: kept %d, dropped %v, cut %v", f, st.Kept, st.Dropped, st.Cut)
		})
	}
}
