package extract

import (
	"context"
	"testing"

	"kgforge/kg"
)

// The example corpus's sentences, as the bundled model saw them.
const (
	veloraBuilds = "Velora Cycles designs and builds bicycles in Porto and Brno."
	martaLeads   = "Marta Sousa leads Velora Cycles."
	ruiManages   = "Rui Almeida is the manager of the Porto plant."
)

// TestCheckTriplet_DropsTheExamplesDegenerateTriplets: the triplets the
// bundled model kept on the example corpus before these rules, each
// dropped for its reason, and the facts the same sentences state, kept.
func TestCheckTriplet_DropsTheExamplesDegenerateTriplets(t *testing.T) {
	for _, c := range []struct {
		subject, predicate, object, evidence, want string
	}{
		// What gemma3:270m kept on the example (issue 13).
		{veloraBuilds, "bicycles", "bicycles", veloraBuilds, DropSubjectIsClause},
		{martaLeads, "marta_sousa_leads", "Marta Sousa leads", martaLeads, DropSubjectIsClause},
		{ruiManages, "ceo_of", "bicycles", ruiManages, DropSubjectIsClause},
		{"Ana Ferreira owns the fatigue test procedure", "owned", "Ana Ferreira", "Ana Ferreira owns the fatigue test procedure.", DropSubjectIsClause},
		{"Velora Cycles Quality Review, First Quarter 2025", "based_in", "Velora Cycles", "Velora Cycles Quality Review, First Quarter 2025", DropSubjectIsClause},
		{"Kestrel Alloys", "delivered", "Kestrel Alloys delivered replacement batch KA-2504-02 on 8 April 2025.", "Kestrel Alloys delivered replacement batch KA-2504-02 on 8 April 2025.", DropObjectIsClause},
		{"A supplier on probation cannot receive purchase orders above 50,000 EUR.", "supplier", "supplier", "A supplier with a rating below 3.0 cannot receive new purchase orders.", DropSubjectNotInEvidence},
		// The same mistakes with a name where the sentence was.
		{"Marta Sousa", "marta_sousa_leads", "Velora Cycles", martaLeads, DropPredicateRepeatsName},
		{"Velora Cycles", "bicycles", "bicycles", veloraBuilds, DropPredicateRepeatsName},
		{"Kestrel Alloys", "kestrel_alloys", "Porto", "Kestrel Alloys ships to Porto.", DropPredicateRepeatsName},
		{"Rui Almeida", "ceo_of", "bicycles", ruiManages, DropObjectNotInEvidence},
		{"bicycles", "ceo_of", "Rui Almeida", ruiManages, DropSubjectNotInEvidence},
		{"Porto", "near", "porto", "Porto is near porto.", DropSelfLoop},
		{"Velora Cycles", "builds", "bicycles in Porto and Brno and also in many other places that a long clause names", veloraBuilds, DropObjectIsClause},
		// Facts.
		{"Marta Sousa", "leads", "Velora Cycles", martaLeads, ""},
		{"Marta Sousa", "leads", "Velora Cycles.", martaLeads, ""}, // the full stop of the sentence, kept
		{"Rui Almeida", "manager_of", "Porto plant", ruiManages, ""},
		{"Velora Cycles", "builds", "bicycles", veloraBuilds, ""},
		{"velora cycles", "based_in", "Porto", veloraBuilds, ""},
		{"Apple Inc.", "founded_by", "Steve Jobs", "Apple Inc. was founded by Steve Jobs.", ""},
		{"member of parliament", "member_of", "House of Commons", "He served as a member of parliament in the House of Commons.", ""},
		{"Friends of Peter G.", "part_of", "Family Guy", `"Friends of Peter G." is an episode of Family Guy.`, ""},
	} {
		if got := CheckTriplet(c.subject, c.predicate, c.object, c.evidence); got != c.want {
			t.Errorf("CheckTriplet(%q, %q, %q, %q) = %q, want %q", c.subject, c.predicate, c.object, c.evidence, got, c.want)
		}
	}
}

func TestIsClause_SentencesAreNoNames(t *testing.T) {
	for _, c := range []struct {
		name, sentence string
		want           bool
	}{
		{martaLeads, "", true}, // ends like a sentence
		{"Velora Cycles designs all of its bicycles in Porto.", "", true},
		{"Marta Sousa founded Velora Cycles in 2011.", "", true},
		{"Ana Ferreira owns the fatigue test procedure", "Ana Ferreira owns the fatigue test procedure.", true}, // the sentence itself
		{"one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen", "", true},
		{"Velora Cycles", martaLeads, false},
		{"bicycles.", "", false}, // a name with its sentence's full stop
		{"Paul Desmarais Jr.", "", false},
		{"Beijing Jinyu Group Co. , Ltd.", "", false},
		{"Born in the U.S.A.", "", false},
		{"O Brother, Where Art Thou?", "", false},
		{"Forget it!", "", false},
		{"October 22nd Coalition to Stop Police Brutality , Repression and the Criminalization of Generation", "", false}, // 13 words, the longest gold name
		{"W.H.A.D.A.L.O.T.T.A.J.A.R.G.O.N.", "", false},
	} {
		if got := IsClause(c.name, c.sentence); got != c.want {
			t.Errorf("IsClause(%q, %q) = %v, want %v", c.name, c.sentence, got, c.want)
		}
	}
}

func TestCheckEntity_ASentenceIsNoEntity(t *testing.T) {
	passage := "Kestrel Alloys\nAna Ferreira quarantined batch KA-2503-17 on 12 March 2025. " + martaLeads
	for _, c := range []struct{ name, want string }{
		{martaLeads, DropEntityIsClause},
		{"Marta Sousa leads Velora Cycles", DropEntityIsClause},
		{"Ana Ferreira quarantined batch KA-2503-17 on 12 March 2025", DropEntityIsClause},
		{"2025-04-11T07:00:03Z INFO [assembly] Line P1 restarted assembly of the Trail 500 with frames from batch KA-2504-02 today", DropEntityIsClause},
		{"Kestrel Alloys", ""}, // a line that is just the name
		{"Ana Ferreira", ""},
		{"Velora Cycles", ""},
	} {
		if got := CheckEntity(c.name, passage); got != c.want {
			t.Errorf("CheckEntity(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestFromExamples_NamesOnlyTheExamplesHold(t *testing.T) {
	examples := "Acme Corp is based in Lyon. Acme Corp buys steel tubes from Boreal Metals."
	passage := "Velora Cycles buys frames in Lyon."
	for _, c := range []struct {
		name string
		want bool
	}{
		{"Boreal Metals", true},
		{"acme corp", true},
		{"Lyon", false},          // the passage names it too
		{"Velora Cycles", false}, // not in the examples
		{"Mallory", false},       // in neither: not found, not copied
	} {
		if got := FromExamples(c.name, passage, examples); got != c.want {
			t.Errorf("FromExamples(%q) = %v, want %v", c.name, got, c.want)
		}
	}
	if FromExamples("Boreal Metals", passage, "") {
		t.Error("no examples shown, yet a name copied from them")
	}
}

// TestExtractor_DropsDegenerateTripletsAndEntitiesByReason: on the example
// corpus's sentences, the bundled model's degenerate triplets and entities,
// and names copied from the worked examples (Casa Lumetta, Lake Mirnau;
// on the old single example the model copied Boreal Metals and Lyon),
// are dropped and counted by reason; the one fact is kept.
func TestExtractor_DropsDegenerateTripletsAndEntitiesByReason(t *testing.T) {
	text := veloraBuilds + " " + martaLeads + " " + ruiManages
	c := kg.Chunk{ID: "c1", SourceID: "s", Text: text, Span: kg.Span{End: len(text)}}
	reply := `{"triplets":[
	 {"evidence":"` + veloraBuilds + `","subject":"` + veloraBuilds + `","subject_type":"company","predicate":"bicycles","object":"bicycles","object_type":"company"},
	 {"evidence":"` + martaLeads + `","subject":"` + martaLeads + `","subject_type":"person","predicate":"marta_sousa_leads","object":"Marta Sousa leads","object_type":"company"},
	 {"evidence":"` + ruiManages + `","subject":"` + ruiManages + `","subject_type":"person","predicate":"ceo_of","object":"bicycles","object_type":"company"},
	 {"evidence":"` + ruiManages + `","subject":"Rui Almeida","subject_type":"person","predicate":"ceo_of","object":"bicycles","object_type":"company"},
	 {"evidence":"` + martaLeads + `","subject":"Marta Sousa","subject_type":"person","predicate":"marta_sousa_leads","object":"Velora Cycles","object_type":"company"},
	 {"evidence":"` + veloraBuilds + `","subject":"Velora Cycles","subject_type":"company","predicate":"buys_from","object":"Casa Lumetta","object_type":"company"},
	 {"evidence":"` + martaLeads + `","subject":"Marta Sousa","subject_type":"person","predicate":"leads","object":"Velora Cycles","object_type":"company"}],
	"entities":[
	 {"name":"` + martaLeads + `","type":"company","description":""},
	 {"name":"Lake Mirnau","type":"city","description":"copied"},
	 {"name":"Marta Sousa","type":"person","description":"leads Velora Cycles"}]}`
	ex, err := New(&scripted{replies: []string{reply}}, nil, Options{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ex.Process(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Triplets) != 1 || res.Triplets[0].Subject.Surface != "Marta Sousa" || res.Triplets[0].Predicate != "leads" {
		t.Errorf("kept %+v, want only (Marta Sousa, leads, Velora Cycles)", res.Triplets)
	}
	if len(res.Entities) != 1 || res.Entities[0].Surface != "Marta Sousa" {
		t.Errorf("kept entities %+v, want only Marta Sousa", res.Entities)
	}
	st := ex.Stats()
	want := map[string]int{DropSubjectIsClause: 3, DropObjectNotInEvidence: 1, DropPredicateRepeatsName: 1, DropFromExamples: 1}
	wantEnt := map[string]int{DropEntityIsClause: 1, DropEntityFromExamples: 1}
	for _, m := range []struct{ got, want map[string]int }{{st.Dropped, want}, {st.EntitiesDropped, wantEnt}} {
		if len(m.got) != len(m.want) {
			t.Errorf("dropped %v, want %v", m.got, m.want)
		}
		for k, v := range m.want {
			if m.got[k] != v {
				t.Errorf("dropped[%s] = %d, want %d (all: %v)", k, m.got[k], v, m.got)
			}
		}
	}
}

// TestExtractor_UngroundedSkipsTheRules: the plain extraction the bench
// compares with keeps what the model said.
func TestExtractor_UngroundedSkipsTheRules(t *testing.T) {
	c := kg.Chunk{ID: "c1", SourceID: "s", Text: martaLeads, Span: kg.Span{End: len(martaLeads)}}
	reply := `{"triplets":[{"evidence":"` + martaLeads + `","subject":"` + martaLeads + `","subject_type":"person","predicate":"marta_sousa_leads","object":"Marta Sousa leads","object_type":"company"}],"entities":[]}`
	ex, err := New(&scripted{replies: []string{reply}}, nil, Options{Model: "m", Evidence: EvidenceQuote, Ungrounded: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ex.Process(context.Background(), c)
	if err != nil || len(res.Triplets) != 1 {
		t.Errorf("ungrounded kept %+v (%v), want the model's one triplet", res.Triplets, err)
	}
}

// FuzzCheckTriplet: the rules take any text without panicking, and a
// triplet they pass has both names in its evidence.
func FuzzCheckTriplet(f *testing.F) {
	f.Add(martaLeads, "leads", "Velora Cycles", martaLeads)
	f.Add(" . ", "_", ".", "..")
	f.Add("a\xffb.", "x", "b", "a\xffb. b")
	f.Fuzz(func(t *testing.T, subject, predicate, object, evidence string) {
		if CheckTriplet(subject, predicate, object, evidence) == "" && (!contains(evidence, subject) || !contains(evidence, object)) {
			t.Errorf("(%q, %q, %q) passed, but %q does not write both", subject, predicate, object, evidence)
		}
		_ = CheckEntity(subject, evidence)
	})
}
