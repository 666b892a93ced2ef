package records_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"kgforge/ingest"
	"kgforge/kg"
)

func TestJSONLReader_Records(t *testing.T) {
	nested := `{"message":"weld inspection failed","details":{"note":"porosity at head tube","inspector":"Marta Leite"},"items":[{"name":"KA-2291","qty":40},{"name":"KA-2292","qty":12}],"level":"error"}`
	tests := []struct {
		name      string
		data      string
		fields    []string
		wantText  string
		wantRecs  []string
		wantTimes []string
	}{
		{
			name:      "dotted fields and index-free array paths, in the order of the fields",
			data:      nested + "\n",
			fields:    []string{"items.name", "message", "details.note"},
			wantText:  "items.name: KA-2291\nitems.name: KA-2292\nmessage: weld inspection failed\ndetails.note: porosity at head tube\n",
			wantRecs:  []string{"items.name: KA-2291\nitems.name: KA-2292\nmessage: weld inspection failed\ndetails.note: porosity at head tube"},
			wantTimes: []string{""},
		},
		{
			name:      "one text field gives bare values",
			data:      `{"message":"a"}` + "\n" + `{"message":"b\nsecond line"}` + "\n",
			fields:    []string{"message"},
			wantText:  "a\n\nb\nsecond line\n",
			wantRecs:  []string{"a", "b\nsecond line"},
			wantTimes: []string{"", ""},
		},
		{
			name:      "one text field that names an array gives each value bare",
			data:      nested,
			fields:    []string{"items.name"},
			wantText:  "KA-2291\nKA-2292\n",
			wantRecs:  []string{"KA-2291\nKA-2292"},
			wantTimes: []string{""},
		},
		{
			name:      "a field that names an object takes every value under it",
			data:      nested,
			fields:    []string{"details"},
			wantText:  "details.note: porosity at head tube\ndetails.inspector: Marta Leite\n",
			wantRecs:  []string{"details.note: porosity at head tube\ndetails.inspector: Marta Leite"},
			wantTimes: []string{""},
		},
		{
			name:      "named numbers and booleans are text, overlapping fields count once",
			data:      `{"items":[{"name":"KA-2291","qty":40}],"ok":false}`,
			fields:    []string{"items", "items.qty", "ok"},
			wantText:  "items.name: KA-2291\nitems.qty: 40\nok: false\n",
			wantRecs:  []string{"items.name: KA-2291\nitems.qty: 40\nok: false"},
			wantTimes: []string{""},
		},
		{
			name:      "without text fields every string value in document order",
			data:      nested,
			wantText:  "message: weld inspection failed\ndetails.note: porosity at head tube\ndetails.inspector: Marta Leite\nitems.name: KA-2291\nitems.name: KA-2292\nlevel: error\n",
			wantRecs:  []string{"message: weld inspection failed\ndetails.note: porosity at head tube\ndetails.inspector: Marta Leite\nitems.name: KA-2291\nitems.name: KA-2292\nlevel: error"},
			wantTimes: []string{""},
		},
		{
			name:      "records without the fields are skipped, blank lines too",
			data:      `{"message":"a"}` + "\n\n" + `{"other":"x"}` + "\r\n" + `{"message":""}` + "\n" + `{"message":null}` + "\n" + `  {"message":"b"}  ` + "\n",
			fields:    []string{"message"},
			wantText:  "a\n\nb\n",
			wantRecs:  []string{"a", "b"},
			wantTimes: []string{"", ""},
		},
		{
			name: "time fields",
			data: `{"timestamp":"2025-03-03T06:00:02.5+01:00","m":"a"}` + "\n" +
				`{"ts":1740981602250,"m":"b"}` + "\n" +
				`{"@timestamp":"2025-03-03 06:00:02","m":"c"}` + "\n" +
				`{"ts":"1740981602","time":"2025-03-03","m":"d"}` + "\n" +
				`{"time":"soon","m":"e","x":{"timestamp":"2025-03-03T06:00:02Z"}}` + "\n" +
				`{"time":1740981602.5,"m":"f"}` + "\n",
			fields:    []string{"m"},
			wantText:  "a\n\nb\n\nc\n\nd\n\ne\n\nf\n",
			wantRecs:  []string{"a", "b", "c", "d", "e", "f"},
			wantTimes: []string{"2025-03-03T05:00:02.5Z", "2025-03-03T06:00:02.25Z", "2025-03-03T06:00:02Z", "2025-03-03T00:00:00Z", "", "2025-03-03T06:00:02.5Z"},
		},
		{
			name:      "values other than objects are records",
			data:      `"a plain line"` + "\n" + `["x", 1, {"k": "y"}]` + "\n",
			wantText:  "a plain line\n\nx\nk: y\n",
			wantRecs:  []string{"a plain line", "x\nk: y"},
			wantTimes: []string{"", ""},
		},
		{
			name:      "control characters are dropped, line breaks kept",
			data:      `{"a\u0000b":" x\u0000y\r\nz\u0007 "}`,
			wantText:  "ab: xy\nz\n",
			wantRecs:  []string{"ab: xy\nz"},
			wantTimes: []string{""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := read(kg.KindJSONL, tt.data, ingest.Options{TextFields: tt.fields})
			if err != nil {
				t.Fatal(err)
			}
			checkDocument(t, doc)
			if doc.Verbatim {
				t.Error("document is verbatim, want built text")
			}
			if doc.Text != tt.wantText {
				t.Errorf("text = %q, want %q", doc.Text, tt.wantText)
			}
			if got := recordTexts(doc); !slices.Equal(got, tt.wantRecs) {
				t.Errorf("records = %q, want %q", got, tt.wantRecs)
			}
			if got := recordTimes(doc); !slices.Equal(got, tt.wantTimes) {
				t.Errorf("times = %q, want %q", got, tt.wantTimes)
			}
		})
	}
}

func TestJSONLReader_Rejects(t *testing.T) {
	tests := []struct {
		name string
		data string
		opt  ingest.Options
		want string
	}{
		{name: "malformed line", data: "{\"m\":\"a\"}\n\n{\"m\":\"b\"}\n{\"m\": tru}\n{\"m\":\"c\"}\n", want: "line 4: invalid JSON: invalid character '}' in literal true (expecting 'e') (column 10)"},
		{name: "indented malformed line", data: "{\"m\":\"a\"}\n   {\"m\" 1}\n", want: "line 2: invalid JSON: invalid character '1' after object key (column 9)"},
		{name: "line cut short", data: "{\"m\":\"a\"}\n{\"m\":[\"b\"\n", want: "line 2: invalid JSON: unexpected end of JSON input (column 10)"},
		{name: "two values on a line", data: "{\"m\":\"a\"} {\"m\":\"b\"}\n", want: "line 1: invalid JSON: invalid character '{' after top-level value (column 11)"},
		{name: "a record split over lines", data: "{\"m\":\n\"a\"}\n", want: "line 1: invalid JSON: unexpected end of JSON input (column 6)"},
		{name: "nested too deep", data: strings.Repeat("[", 1002) + strings.Repeat("]", 1002), want: "line 1: invalid JSON: nested deeper than 1000 levels"},
		{name: "no record has the fields", data: "{\"a\":\"x\"}\n{\"b\":\"y\"}\n", opt: ingest.Options{TextFields: []string{"message", "details.note"}}, want: "no record has a text field of message, details.note (2 read; check text_fields in the pipeline file)"},
		{name: "no string values", data: "{\"a\":1}\n", want: "no record has a string value (1 read; set text_fields in the pipeline file)"},
		{name: "only blank lines", data: "\n\n  \n", want: "rejected: no records"},
		{name: "more records than max_records", data: "\"a\"\n\"b\"\n\"c\"\n", opt: ingest.Options{Limits: ingest.Limits{MaxRecords: 2}}, want: "more than 2 records"},
		{name: "binary", data: "{\"a\":\"\x00\"}", want: "binary content"},
		{name: "empty file", data: "", want: "empty file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := read(kg.KindJSONL, tt.data, tt.opt)
			if err == nil {
				t.Fatal("read succeeded, want a reject")
			}
			checkReadError(t, err)
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestJSONReader_Records(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		fields    []string
		wantRecs  []string
		wantTimes []string
	}{
		{
			name:      "array of records",
			data:      "\uFEFF[\n  {\"subject\": \"Crack near the head tube\", \"time\": \"2025-02-27T09:14:00Z\"},\n  {\"subject\": \"Delivery delayed\", \"body\": \"order 55-18320\"},\n  {\"body\": \"no subject\"}\n]\n",
			fields:    []string{"subject"},
			wantRecs:  []string{"Crack near the head tube", "Delivery delayed"},
			wantTimes: []string{"2025-02-27T09:14:00Z", ""},
		},
		{
			name:      "an object is one record",
			data:      `{"plant": "Porto", "lines": [{"id": "FL-2", "cells": ["W1", "W2"]}], "ts": 1740981602}`,
			wantRecs:  []string{"plant: Porto\nlines.id: FL-2\nlines.cells: W1\nlines.cells: W2"},
			wantTimes: []string{"2025-03-03T06:00:02Z"},
		},
		{
			name:      "array of scalars",
			data:      `["a", 1, "b"]`,
			wantRecs:  []string{"a", "b"},
			wantTimes: []string{"", ""},
		},
		{
			name:      "a string is one record",
			data:      ` "just text" `,
			wantRecs:  []string{"just text"},
			wantTimes: []string{""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := read(kg.KindJSON, tt.data, ingest.Options{TextFields: tt.fields})
			if err != nil {
				t.Fatal(err)
			}
			checkDocument(t, doc)
			if got := recordTexts(doc); !slices.Equal(got, tt.wantRecs) {
				t.Errorf("records = %q, want %q", got, tt.wantRecs)
			}
			if got := recordTimes(doc); !slices.Equal(got, tt.wantTimes) {
				t.Errorf("times = %q, want %q", got, tt.wantTimes)
			}
			if want := strings.Join(tt.wantRecs, "\n\n") + "\n"; doc.Text != want {
				t.Errorf("text = %q, want %q", doc.Text, want)
			}
		})
	}
}

func TestJSONReader_Rejects(t *testing.T) {
	tests := []struct {
		name string
		data string
		opt  ingest.Options
		want string
	}{
		{name: "syntax error named by line and column", data: "[\n  {\"a\": \"x\"},\n  {\"a\": \"y\",}\n]\n", want: "line 3: invalid JSON: invalid character '}' looking for beginning of object key string (column 13)"},
		{name: "array cut short", data: "[{\"a\": \"x\"},\n", want: "line 2: invalid JSON: unexpected end of JSON input (column 1)"},
		{name: "data after the document", data: "{\"a\": \"x\"}\n{\"a\": \"y\"}\n", want: "line 2: invalid JSON: invalid character '{' after top-level value (column 1)"},
		{name: "more records than max_records", data: `["a","b","c"]`, opt: ingest.Options{Limits: ingest.Limits{MaxRecords: 2}}, want: "more than 2 records"},
		{name: "empty array", data: "[]", want: "rejected: no records"},
		{name: "no text", data: `[{"a": 1}, {"b": null}]`, want: "no record has a string value (2 read"},
		{name: "white space only", data: " \n", want: "line 2: invalid JSON: unexpected end of JSON input (column 1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := read(kg.KindJSON, tt.data, tt.opt)
			if err == nil {
				t.Fatal("read succeeded, want a reject")
			}
			checkReadError(t, err)
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestJSONLReader_Tickets(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/tickets.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := read(kg.KindJSONL, string(data), ingest.Options{TextFields: []string{"id", "customer.name", "subject", "body", "tags"}})
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, doc)
	recs := recordTexts(doc)
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	want := "id: VC-1042\ncustomer.name: Joana Ferreira\nsubject: Crack near the head tube of my Serra Trail 29\n" +
		"body: I noticed a hairline crack at the head tube weld after 300 km. Frame serial VT29-0412, bought in January.\n" +
		"tags: warranty\ntags: frame\ntags: serra-trail-29"
	if recs[0] != want {
		t.Errorf("first record = %q, want %q", recs[0], want)
	}
	if !strings.Contains(recs[6], "body: The warranty form says my serial VT29-0455 is unknown.\nI bought the bike at Ciclos Douro in Porto.") {
		t.Errorf("record 7 = %q, want its two-line body", recs[6])
	}
}
