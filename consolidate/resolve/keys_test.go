package resolve

import (
	"reflect"
	"slices"
	"testing"
)

func TestNormalizeName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Akzo Nobel N.V.", "akzo nobel nv"},
		{"AKZO  NOBEL", "akzo nobel"},
		{"Société Générale", "societe generale"},
		{"Societe Generale", "societe generale"},
		{"I.B.M.", "ibm"},
		{"O'Neil & Sons", "oneil sons"},
		{"Coca-Cola", "coca cola"},
		{"Straße", "strasse"},
		{"ＡＢＣ１２３", "abc123"},               // NFKC: full-width letters and digits
		{"ﬁnance", "finance"},              // NFKC: the fi ligature
		{"Zürich—Genève", "zurich geneve"}, // an em dash is a separator
		{"  ", ""},
	}
	for _, tt := range tests {
		if got := NormalizeName(tt.in); got != tt.want {
			t.Errorf("NormalizeName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNameFeatures(t *testing.T) {
	tests := []struct {
		name            string
		in              string
		nameKey, suffix string
		plural, short   string
		long            []string
		codes           []string
		shortName       bool
	}{
		{name: "corporate suffix", in: "Akzo Nobel N.V.", nameKey: "akzonobelnv", suffix: "akzonobel", plural: "akzonobel", long: []string{"an"}},
		{name: "stacked suffixes", in: "Foo Holdings Co., Ltd.", nameKey: "fooholdingscoltd", suffix: "foo", plural: "foo", short: "foo", shortName: true},
		{name: "leading the", in: "The Coca-Cola Company", nameKey: "thecocacolacompany", suffix: "cocacola", plural: "cocacola", long: []string{"cc"}},
		{name: "suffix alone stays", in: "AG", nameKey: "ag", suffix: "ag", plural: "ag", short: "ag", shortName: true},
		{name: "plural", in: "Widgets", nameKey: "widgets", suffix: "widgets", plural: "widget", short: ""},
		{name: "plural ies", in: "Acme Industries", nameKey: "acmeindustries", suffix: "acmeindustries", plural: "acmeindustry", long: []string{"ai"}},
		{name: "acronym", in: "IBM", nameKey: "ibm", suffix: "ibm", plural: "ibm", short: "ibm", shortName: true},
		{name: "dotted acronym", in: "I.B.M. Corp", nameKey: "ibmcorp", suffix: "ibm", plural: "ibm", short: "ibm", shortName: true},
		{name: "expansion", in: "International Business Machines", nameKey: "internationalbusinessmachines", suffix: "internationalbusinessmachines", plural: "internationalbusinessmachine", long: []string{"ibm"}},
		{name: "stop words", in: "Bank of America", nameKey: "bankofamerica", suffix: "bankofamerica", plural: "bankofamerica", long: []string{"ba", "boa"}},
		{name: "long lower word is no acronym", in: "bakery", nameKey: "bakery", suffix: "bakery", plural: "bakery"},
		{name: "numbers", in: "Model X500 (2023)", nameKey: "modelx5002023", suffix: "modelx5002023", plural: "modelx5002023", long: []string{"mx2"}, codes: []string{"x500", "2023"}},
		{name: "roman and month", in: "Louis XIV, March", nameKey: "louisxivmarch", suffix: "louisxivmarch", plural: "louisxivmarch", long: []string{"lxm"}, codes: []string{"14", "m3"}},
		{name: "low entropy", in: "Anna", nameKey: "anna", suffix: "anna", plural: "anna", short: "anna", shortName: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := nameFeatures(tt.in, "")
			if f.name != tt.nameKey || f.suffix != tt.suffix || f.plural != tt.plural {
				t.Errorf("keys name=%q suffix=%q plural=%q, want %q %q %q", f.name, f.suffix, f.plural, tt.nameKey, tt.suffix, tt.plural)
			}
			if f.acrShort != tt.short {
				t.Errorf("acronym = %q, want %q", f.acrShort, tt.short)
			}
			if !reflect.DeepEqual(f.acrLong, tt.long) {
				t.Errorf("initials = %q, want %q", f.acrLong, tt.long)
			}
			if !slices.Equal(f.codes, tt.codes) {
				t.Errorf("codes = %q, want %q", f.codes, tt.codes)
			}
			if f.short != tt.shortName {
				t.Errorf("short = %v, want %v", f.short, tt.shortName)
			}
		})
	}
}

func TestSingular(t *testing.T) {
	tests := map[string]string{
		"reports": "report", "companies": "company", "boxes": "box", "churches": "church",
		"classes": "class", "glass": "glass", "status": "status", "analysis": "analysis",
		"bus": "bus", "gas": "gas", "report": "report",
	}
	for in, want := range tests {
		if got := singular(in); got != want {
			t.Errorf("singular(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNumbersDiffer(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"Station 1", "Station 2", false},
		{"Model X50", "Model X500", false},
		{"2023 report", "2024 report", false},
		{"Report January", "Report February", false},
		{"World War II", "World War 2", true},
		{"Station 1", "station-1", true},
		{"Station", "Station 1", false},
		{"Acme Inc", "ACME", true},
		{"Canon PowerShot SX130-IS", "Canon PowerShot SX130IS", true},
		{"LG 32LK330", "LG 32LK330 32-Inch 720p LCD HDTV", true},
		{"Tank T-1", "Tank T-11", false},
		{"Building 5", "Building 15", false},
		{"Version 1.2", "Version 1.3", false},
		{"Unit 1A", "Unit 1B", false},
		{"Invoice 2021-007", "Invoice 2021-008", false},
		{"Q1 2021 results", "Q2 2021 results", false},
		{"March 2023 report", "Mar 2023 report", true},
		{"Rocky II", "Rocky III", false},
		// Number words are the numbers they spell, unless part of a
		// hyphenated word.
		{"BBC One", "BBC1", true},
		{"BBC One", "BBC Two", false},
		{"Report on the fourth conference", "Report on the 4th conference (FQAS 2000)", true},
		{"Report on the fourth conference", "Report on the fifth conference", false},
		{"two - and - a - half miles", "one - and - a - half miles", false},
		{"Panasonic NN-C994S One-Touch Sensor Cooking", "Panasonic NNC994SS", true},
		{"Three-Self Patriotic Movement", "TSPM", true},
		{"One-dimensional and multi-dimensional substring selectivity", "Multi-dimensional substring selectivity", true},
		// A month is a date outside a person's name.
		{"August report", "report", false},
	}
	for _, tt := range tests {
		fa, fb := nameFeatures(tt.a, ""), nameFeatures(tt.b, "")
		if got := !numbersDiffer(&fa, &fb); got != tt.same {
			t.Errorf("%q (%q) vs %q (%q): same numbers = %v, want %v", tt.a, fa.codes, tt.b, fb.codes, got, tt.same)
		}
	}
}

func TestNumbersDiffer_MonthsInAPersonsName(t *testing.T) {
	for _, tt := range []struct {
		a, b, typ string
		same      bool
	}{
		{"Henrik August Angell", "Henrik Angell", "Person", true},
		{"April Ryan", "Ryan", "person", true},
		{"William DeMott II", "William DeMott", "Person", false}, // a Roman numeral still counts
		{"Henrik August Angell", "Henrik Angell", "Organization", false},
	} {
		fa, fb := nameFeatures(tt.a, tt.typ), nameFeatures(tt.b, tt.typ)
		if got := !numbersDiffer(&fa, &fb); got != tt.same {
			t.Errorf("%q (%q) vs %q (%q) as %s: same numbers = %v, want %v", tt.a, fa.codes, tt.b, fb.codes, tt.typ, got, tt.same)
		}
	}
}

func TestCompatibility(t *testing.T) {
	c := newCompatibility(map[string][]string{"Company": {"organization"}})
	tests := []struct {
		a, b string
		want bool
	}{
		{"person", "person", true},
		{"", "person", true},
		{"person", "", true},
		{"company", "organization", true},
		{"organization", "company", true},
		{"person", "organization", false},
		{"company", "person", false},
	}
	for _, tt := range tests {
		if got := c.ok(tt.a, tt.b); got != tt.want {
			t.Errorf("ok(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if normalizeType(" Unknown ") != "" || normalizeType("Organization") != "organization" {
		t.Errorf("normalizeType: unknown and case are not folded")
	}
}

func TestNumbersDiffer_ModelMarksOfProducts(t *testing.T) {
	for _, tt := range []struct {
		a, b, typ string
		same      bool
	}{
		// Two marks, neither in the other name: two products.
		{"Sony LCS-CSJ Black Soft Carrying Case - LCSCSJ", "Sony LCS-CSQ/B Black Soft Carrying Case - LCSCSQB", "product", false},
		{"Nintendo DS Lite Onyx Black Portable Gaming System - NDSUSGSKB", "Nintendo DS Lite Crimson/Black Portable Gaming System - NDSUSGSRMKB", "product", false},
		// The same mark written with and without separators, or with two
		// letters swapped (a typo), agrees.
		{"Sony LCS-CSQ Soft Cyber-shot Camera Case - LCSCSQ/B", "Sony LCS-CSQ/B Black Soft Carrying Case - LCSCSQB", "product", true},
		{"Speck SeeThru Clear Hard Shell Case For MacBook Air - MBACLRSEE", "Speck Products SeeThru Case for Apple MacBook Air - MBA-CLR-SEE", "product", true},
		{"Boston Acoustics Solo AM/FM Large Display Clock Radio - HSOLOMDNT", "Boston Acoustics Horizon Solo AM/FM Radio - HSOLOMNDT", "product", true},
		// A mark on one side only, or a brand in capitals the other
		// writes in small letters, is no difference.
		{"Sony LCS-CSJ Soft Camera Case - LCSCSJ", "Sony Black Soft Carrying Case", "product", true},
		{"PHILIPS Shaver Series Travel Kit - TRAVELKIT", "Philips Shaver Series Travel Kit", "product", true},
		// Short words in capitals are no marks; a name in capitals
		// throughout has none; other kinds have none.
		{"SONY HDMI Cable", "SONY DVI Cable", "product", true},
		{"ACME WIDGET DELUXE", "ACME WIDGET SUPREME", "product", true},
		{"Sony LCS-CSJ Case - LCSCSJ", "Sony LCS-CSQ/B Case - LCSCSQB", "organization", true},
	} {
		fa, fb := nameFeatures(tt.a, tt.typ), nameFeatures(tt.b, tt.typ)
		if got := !numbersDiffer(&fa, &fb); got != tt.same {
			t.Errorf("%q (%q) vs %q (%q) as %s: same numbers = %v, want %v", tt.a, fa.modelMarks(), tt.b, fb.modelMarks(), tt.typ, got, tt.same)
		}
	}
}
