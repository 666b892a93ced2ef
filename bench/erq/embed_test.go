package main

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"kgforge/llm"
)

// countingEmbedder embeds a text as (its length, 1) and counts the texts it
// was asked for.
type countingEmbedder struct{ asked []string }

func (e *countingEmbedder) embed(_ context.Context, _ string, inputs []string, _ int) ([][]float32, error) {
	e.asked = append(e.asked, inputs...)
	out := make([][]float32, len(inputs))
	for i, s := range inputs {
		out[i] = []float32{float32(len(s)), 1}
	}
	return out, nil
}

func TestFillVectors_EmbedsEachTextOnceThenFromCache(t *testing.T) {
	cache, err := openVectorCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sets := func() []Dataset {
		return []Dataset{
			{Problems: []Problem{{Records: recs("x", "Porto plant", "ACME", "Porto plant")}}},
			{Problems: []Problem{{Records: recs("y", "ACME", "IBM")}, {Records: recs("z", "Line 3")}}},
		}
	}
	e := &countingEmbedder{}
	first := sets()
	st, err := fillVectors(context.Background(), e.embed, cache, "m", "d1", 2, first, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.asked, []string{"Porto plant", "ACME", "IBM", "Line 3"}) || st.Texts != 4 || st.Cached != 0 || st.Dims != 2 {
		t.Errorf("asked %q, stats %+v", e.asked, st)
	}
	if v := first[1].Problems[1].Records[0].Vector; !slices.Equal(v, []float32{6, 1}) {
		t.Errorf("vector of Line 3: %v", v)
	}
	e.asked = nil
	again := sets()
	st, err = fillVectors(context.Background(), e.embed, cache, "m", "d1", 2, again, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.asked) != 0 || st.Cached != 4 || !slices.Equal(again[0].Problems[0].Records[2].Vector, []float32{11, 1}) {
		t.Errorf("second run asked %q, stats %+v", e.asked, st)
	}
	// Another model digest is another address.
	if _, err := fillVectors(context.Background(), e.embed, cache, "m", "d2", 2, sets(), nil); err != nil || len(e.asked) != 4 {
		t.Errorf("new digest asked %q, err %v", e.asked, err)
	}
}

func TestFillVectors_PassesServerErrorsOn(t *testing.T) {
	cache, err := openVectorCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("server down")
	_, err = fillVectors(context.Background(), func(context.Context, string, []string, int) ([][]float32, error) {
		return nil, boom
	}, cache, "m", "d", 8, []Dataset{{Problems: []Problem{{Records: recs("x", "a")}}}}, nil)
	if !errors.Is(err, boom) {
		t.Errorf("err %v, want the server's", err)
	}
}

// TestEmbedIntegration embeds a few synthetic names with the real server
// (scripts/ollama.sh up) and checks that the cosine method sees what an
// embedding model sees.
func TestEmbedIntegration(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the Ollama server")
	}
	client, err := llm.New(llm.Options{Timeout: 30 * time.Second, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	digests, err := client.ModelDigests(ctx, llm.EmbedModelForTests)
	if err != nil {
		t.Skipf("no embedding model on %s: %v", client.Host(), err)
	}
	cache, err := openVectorCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sets := []Dataset{{Problems: []Problem{{Records: recs("facility", "Porto plant", "Porto Plant", "Tampere plant")}}}}
	st, err := fillVectors(ctx, client.Embed, cache, llm.EmbedModelForTests, digests[llm.EmbedModelForTests], 64, sets, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Dims != 384 {
		t.Errorf("%d dimensions, want all-minilm's 384", st.Dims)
	}
	labels, err := Cosine(0.8).Resolve(ctx, sets[0].Problems[0].Records)
	if err != nil {
		t.Fatal(err)
	}
	if labels[0] != labels[1] || labels[0] == labels[2] {
		t.Errorf("labels %v: want the two Porto plants together, Tampere apart", labels)
	}
}
