package link

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"kgforge/consolidate/resolve"
	"kgforge/kg"
)

// surfaces returns text[Start:End] of each hit.
func surfaces(text string, hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, text[h.Start:h.End])
	}
	return out
}

func dict(names ...string) *Dictionary {
	var es []Entry
	for _, n := range names {
		es = append(es, Entry{Name: n, NodeID: "id:" + n})
	}
	return NewDictionary(es, DictConfig{})
}

func TestDictionary_FindSpansAreExactSurfacesAtWordBoundaries(t *testing.T) {
	d := dict("Brno", "Brno Assembly Plant", "Kestrel Alloys", "TechChip Inc", "Škoda Díly", "Porto", "O'Neil Parts")
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"exact", "The Brno plant opened in 2019.", []string{"Brno"}},
		{"not inside a word", "Brnoville and Porto-based Ltd.", []string{"Porto"}},
		{"not a prefix of a word", "BrnoAssembly", nil},
		{"leftmost longest", "at the Brno Assembly Plant today", []string{"Brno Assembly Plant"}},
		{"longest needs all its words", "the Brno Assembly line", []string{"Brno"}},
		{"case and white space", "KESTREL\n  alloys shipped", []string{"KESTREL\n  alloys"}},
		{"legal form in the text is part of the surface", "from Kestrel Alloys Ltd. in Sheffield", []string{"Kestrel Alloys Ltd"}},
		{"legal form in lower case is not", "Kestrel Alloys co-founded it", []string{"Kestrel Alloys"}},
		{"legal form in the name is optional in the text", "TechChip ships", []string{"TechChip"}},
		{"and matches when written", "TechChip Inc. ships", []string{"TechChip Inc"}},
		{"accents in the name", "Skoda Dily and ŠKODA DÍLY", []string{"Skoda Dily", "ŠKODA DÍLY"}},
		{"decomposed accents keep their marks", "Porto and Škoda Di\u0301ly", []string{"Porto", "Škoda Di\u0301ly"}},
		{"accents in the text", "Pörto", []string{"Pörto"}},
		{"offsets after multibyte text", "Zürich — Ĳssel — Brno", []string{"Brno"}},
		{"possessive", "Kestrel Alloys's rating and Brno’s plant", []string{"Kestrel Alloys", "Brno"}},
		{"apostrophe inside a name", "O’Neil Parts shipped", []string{"O’Neil Parts"}},
		{"neighbours both found", "Brno Porto Brno", []string{"Brno", "Porto", "Brno"}},
		{"punctuation between words", "Kestrel-Alloys, Brno.", []string{"Kestrel-Alloys", "Brno"}},
		{"abbreviation dots", "B.r.n.o", []string{"B.r.n.o"}},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits := d.Find(tc.text)
			if got := surfaces(tc.text, hits); !slices.Equal(got, tc.want) {
				t.Errorf("Find(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestDictionary_HitNamesTheNodesOfItsKey(t *testing.T) {
	d := NewDictionary([]Entry{
		{Name: "Kestrel Alloys Ltd.", NodeID: "s1"},
		{Name: "Kestrel Alloys", NodeID: "s1"},
		{Name: "Porto", NodeID: "plant1"},
		{Name: "PORTO", NodeID: "city1"},
	}, DictConfig{})
	hits := d.Find("Kestrel Alloys delivered to Porto")
	if len(hits) != 2 || hits[0].Key != "kestrel alloys" || !slices.Equal(hits[0].Nodes, []string{"s1"}) ||
		hits[1].Key != "porto" || !slices.Equal(hits[1].Nodes, []string{"city1", "plant1"}) {
		t.Errorf("hits = %+v", hits)
	}
}

func TestDictionary_ShortNumericAndAmbiguousNamesStayOut(t *testing.T) {
	var es []Entry
	for _, n := range []string{"BM", "X1", "2025", "12-03-2025", "4.6", "Brno"} {
		es = append(es, Entry{Name: n, NodeID: "id:" + n})
	}
	for i := range DefaultDictMaxNodes + 1 {
		es = append(es, Entry{Name: "Central", NodeID: "central" + string(rune('a'+i))})
	}
	d := NewDictionary(es, DictConfig{})
	text := "BM and X1 in 2025 (12-03-2025), rated 4.6, Central and Brno"
	if got := surfaces(text, d.Find(text)); !slices.Equal(got, []string{"Brno"}) {
		t.Errorf("Find = %q, want only Brno", got)
	}
	want := map[string]int{"short": 2, "no_letter": 3, "ambiguous": 1}
	for k, v := range want {
		if d.Skipped[k] != v {
			t.Errorf("Skipped[%s] = %d, want %d (all: %v)", k, d.Skipped[k], v, d.Skipped)
		}
	}
}

func TestKey_AgreesWithResolveNormalizeName(t *testing.T) {
	for _, name := range []string{
		"Kestrel Alloys Ltd.", "S.A. Industries", "O'Neil", "Škoda Díly a.s.", "Straße GmbH",
		"ＦＵＬＬ ｗｉｄｔｈ", "ﬁne Parts", "Brno  Assembly\tPlant", "Pedal & Co", "½ inch", "İstanbul",
		"Café\u0301", "e\u0301toile", "Nordhavn Drivetrain A/S", "Müller-Lüdenscheidt",
	} {
		if got, want := Key(name), resolve.NormalizeName(name); got != want {
			t.Errorf("Key(%q) = %q, resolve.NormalizeName = %q", name, got, want)
		}
	}
}

func TestDictionary_FindIsDeterministicWhateverTheEntryOrder(t *testing.T) {
	es := []Entry{{"Brno", "a"}, {"Brno Assembly Plant", "b"}, {"Porto", "c"}, {"porto", "d"}, {"Kestrel Alloys", "e"}}
	text := "Porto, Brno Assembly Plant, Kestrel Alloys Ltd. and Brno"
	want := NewDictionary(es, DictConfig{}).Find(text)
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		got := NewDictionary(es, DictConfig{}).Find(text)
		if !slices.EqualFunc(got, want, func(a, b Hit) bool {
			return a.Start == b.Start && a.End == b.End && a.Key == b.Key && slices.Equal(a.Nodes, b.Nodes)
		}) {
			t.Fatalf("entries %v: %+v, want %+v", es, got, want)
		}
	}
}

// rowNode is a row entity as link.Rows makes it.
func rowNode(table, key, name, typ string, aliases ...string) kg.Node {
	return kg.Node{
		ID: RowID(table, key), Name: name, Kind: kg.NodeConcept, Labels: []string{"Entity", typ}, Aliases: aliases,
		Properties: map[string]string{kg.PropTable: table, kg.PropKeyColumn: "id", kg.PropKey: key, "type": typ},
	}
}

func TestMentions_ExampleChunkLinksToRowEntitiesWithSourceSpans(t *testing.T) {
	text, err := os.ReadFile("../../examples/bikeco/docs/suppliers.txt")
	if err != nil {
		t.Fatal(err)
	}
	const offset = 1000 // the chunk starts 1000 bytes into its source
	c := kg.Chunk{ID: "c1", SourceID: "src1", Text: string(text), Span: kg.Span{Start: offset, End: offset + len(text)}}
	nodes := []kg.Node{
		rowNode("suppliers", "S001", "Kestrel Alloys", "Supplier"),
		rowNode("suppliers", "S005", "Lumen Cell Systems", "Supplier", "Lumen Cells"),
		rowNode("plants", "BRN", "Brno Assembly Plant", "Plant", "Brno"),
		{ID: "concept1", Name: "Porto", Kind: kg.NodeConcept}, // no table: not in the dictionary
	}
	mentions, edges := Mentions([]kg.Chunk{c}, nodes, DictConfig{})
	seen := map[string]int{}
	for _, m := range mentions {
		if got := string(text[m.Span.Start-offset : m.Span.End-offset]); got != m.Surface {
			t.Errorf("mention %q has span %v, which holds %q", m.Surface, m.Span, got)
		}
		seen[m.Surface]++
	}
	for _, s := range []string{"Kestrel Alloys", "Kestrel Alloys Ltd", "Lumen Cell Systems", "Lumen Cells", "Brno"} {
		if seen[s] == 0 {
			t.Errorf("no mention %q in %v", s, seen)
		}
	}
	if seen["Porto"] > 0 {
		t.Errorf("Porto is no row entity but was mentioned")
	}
	if len(edges) != 3 {
		t.Fatalf("edges = %+v, want one per row entity", edges)
	}
	for _, e := range edges {
		if e.ID != kg.EdgeID("c1", EdgeMentions, e.Dst) || e.Src != "c1" || e.Type != "MENTIONS" ||
			e.Properties["source"] != SourceDictionary || !strings.HasPrefix(e.Properties["evidence_span"], "src1:") {
			t.Errorf("edge %+v is not a chunk's dictionary MENTIONS edge", e)
		}
	}
}

func TestMentions_NameInTooManyChunksIsDropped(t *testing.T) {
	var chunks []kg.Chunk
	for i := range 100 {
		text := "the Central warehouse"
		if i == 0 {
			text += " and Kestrel Alloys"
		}
		chunks = append(chunks, kg.Chunk{ID: kg.ID("c", string(rune(i))), SourceID: "s", Text: text})
	}
	nodes := []kg.Node{rowNode("plants", "1", "Central", "Plant"), rowNode("suppliers", "1", "Kestrel Alloys", "Supplier")}
	_, edges := Mentions(chunks, nodes, DictConfig{})
	if len(edges) != 1 || edges[0].Dst != RowID("suppliers", "1") {
		t.Errorf("edges = %+v, want only Kestrel Alloys (Central is in every chunk)", edges)
	}
	if _, edges := Mentions(chunks, nodes, DictConfig{MinCommon: 200}); len(edges) != 101 {
		t.Errorf("with MinCommon 200, %d edges, want 101", len(edges))
	}
}

func TestMergeMentions_OneEdgePerChunkAndNode(t *testing.T) {
	model := map[string]*kg.Edge{}
	id := kg.EdgeID("c1", EdgeMentions, "n1")
	model[id] = &kg.Edge{ID: id, Src: "c1", Dst: "n1", Type: EdgeMentions, Confidence: 1, ChunkIDs: []string{"c1"}}
	c := kg.Chunk{ID: "c1", SourceID: "s"}
	dictEdges := []kg.Edge{*dictEdge(c, "n1", "X", kg.Span{Start: 1, End: 2}, 1), *dictEdge(c, "n2", "Y", kg.Span{Start: 3, End: 4}, 1)}
	added := MergeMentions(model, dictEdges)
	if len(model) != 2 || len(added) != 1 || added[0].Dst != "n2" {
		t.Fatalf("model = %v, added = %v", model, added)
	}
	if p := model[id].Properties; p["source"] != "model+dictionary" || p["evidence_span"] != "s:1-2" {
		t.Errorf("merged edge properties = %v", p)
	}
}

// FuzzDictionaryFind checks, for any text, that hits are in order, do not
// overlap, sit on word boundaries and spell their key.
func FuzzDictionaryFind(f *testing.F) {
	for _, s := range []string{"Brno Assembly Plant", "Kestrel Alloys Ltd.", "Škoda Di\u0301ly's", "Brnoville", "\xff\xfeBrno"} {
		f.Add(s)
	}
	d := dict("Brno", "Brno Assembly Plant", "Kestrel Alloys", "Škoda Díly", "Assembly")
	f.Fuzz(func(t *testing.T, text string) {
		last := 0
		for _, h := range d.Find(text) {
			if h.Start < last || h.End <= h.Start || h.End > len(text) {
				t.Fatalf("hit %+v after %d in %q", h, last, text)
			}
			last = h.End
			if k := Key(text[h.Start:h.End]); k != h.Key && !slices.Contains(variants(k), h.Key) {
				t.Fatalf("hit %q has key %q, not %q", text[h.Start:h.End], k, h.Key)
			}
			// A word boundary as the normaliser sees it: the rune next to
			// the hit does not glue onto its first or last word.
			before, _ := utf8.DecodeLastRuneInString(text[:h.Start])
			after, _ := utf8.DecodeRuneInString(text[h.End:])
			k := Key(text[h.Start:h.End])
			if kb := Key(string(before) + text[h.Start:h.End]); h.Start > 0 && kb != k && !strings.HasSuffix(kb, " "+k) {
				t.Fatalf("hit %q in %q glues onto the word before it (%q)", text[h.Start:h.End], text, kb)
			}
			if ka := Key(text[h.Start:h.End] + string(after)); h.End < len(text) && ka != k && !strings.HasPrefix(ka, k+" ") {
				t.Fatalf("hit %q in %q glues onto the word after it (%q)", text[h.Start:h.End], text, ka)
			}
		}
	})
}

// TestMentions_ExampleDocumentsMeetTheirRows runs the example's row
// entities over its documents, one chunk per file: the suppliers, parts and
// plants its documents name are mentioned where the text names them.
func TestMentions_ExampleDocumentsMeetTheirRows(t *testing.T) {
	db, tables := loadExample(t)
	rs, err := Rows(t.Context(), db, tables, Config{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("../../examples/bikeco/docs/*")
	if err != nil {
		t.Fatal(err)
	}
	var chunks []kg.Chunk
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, kg.Chunk{ID: filepath.Base(f), SourceID: filepath.Base(f), Text: string(b), Span: kg.Span{End: len(b)}})
	}
	mentions, edges := Mentions(chunks, rs.Nodes, DictConfig{})
	surfaces := map[string]map[string]bool{} // node name → surfaces
	name := map[string]string{}
	for _, n := range rs.Nodes {
		name[n.ID] = n.Name
	}
	for _, e := range edges {
		if surfaces[name[e.Dst]] == nil {
			surfaces[name[e.Dst]] = map[string]bool{}
		}
		surfaces[name[e.Dst]][e.Src] = true
	}
	t.Logf("%d row entities, %d mentions, %d chunk→row edges, %d row entities mentioned", len(rs.Nodes), len(mentions), len(edges), len(surfaces))
	for _, want := range []struct{ name, chunk string }{
		{"Kestrel Alloys", "suppliers.txt"},
		{"Kestrel Alloys", "incident-2025-03-cracked-frames.md"},
		{"Danubia Wheelworks", "suppliers.txt"},
	} {
		if !surfaces[want.name][want.chunk] {
			t.Errorf("%s is not mentioned in %s (mentioned: %v)", want.name, want.chunk, surfaces)
		}
	}
}

func TestMentions_SameResultWhateverTheOrderOfChunksAndNodes(t *testing.T) {
	nodes := []kg.Node{
		rowNode("suppliers", "S001", "Kestrel Alloys", "Supplier", "Kestrel Alloys Ltd."),
		rowNode("plants", "BRN", "Brno Assembly Plant", "Plant", "Brno"),
		rowNode("plants", "PRT", "Porto", "Plant"),
	}
	var chunks []kg.Chunk
	for i, text := range []string{"Kestrel Alloys Ltd. ships to Brno.", "The Brno Assembly Plant and Porto.", "Nothing here."} {
		chunks = append(chunks, kg.Chunk{ID: kg.ID("c", text), SourceID: "s", Text: text, Span: kg.Span{Start: 100 * i, End: 100*i + len(text)}})
	}
	wantM, wantE := Mentions(chunks, nodes, DictConfig{})
	if len(wantE) != 4 {
		t.Fatalf("edges = %+v, want 4", wantE)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 10 {
		r.Shuffle(len(chunks), func(i, j int) { chunks[i], chunks[j] = chunks[j], chunks[i] })
		r.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
		gotM, gotE := Mentions(chunks, nodes, DictConfig{})
		if !reflect.DeepEqual(gotM, wantM) || !reflect.DeepEqual(gotE, wantE) {
			t.Fatalf("another order gave another result:\n%+v\n%+v", gotE, wantE)
		}
	}
}
