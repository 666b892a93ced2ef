package records_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"kgforge/ingest"
	_ "kgforge/ingest/records"
	"kgforge/kg"
)

// read reads data as a source of kind with the reader registered for it.
func read(kind kg.SourceKind, data string, opt ingest.Options) (ingest.Document, error) {
	src := kg.Source{ID: "s1", URI: "in." + string(kind), Kind: kind, Modified: time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)}
	return ingest.ReadDocument(context.Background(), src, []byte(data), opt)
}

// checkDocument fails t unless doc keeps the contract of ingest.Document:
// sections and records ordered, non-overlapping and within Text, every
// record non-empty and inside one section, every time in UTC.
func checkDocument(t *testing.T, doc ingest.Document) {
	t.Helper()
	prev := 0
	for i, s := range doc.Sections {
		if s.Span.Start < prev || s.Span.End < s.Span.Start || s.Span.End > len(doc.Text) {
			t.Fatalf("section %d span %+v: out of order or outside text of %d bytes", i, s.Span, len(doc.Text))
		}
		prev = s.Span.End
	}
	prev = 0
	for i, r := range doc.Records {
		if r.Span.Start < prev || r.Span.End <= r.Span.Start || r.Span.End > len(doc.Text) {
			t.Fatalf("record %d span %+v: empty, out of order or outside text of %d bytes (previous ends at %d)", i, r.Span, len(doc.Text), prev)
		}
		prev = r.Span.End
		inside := false
		for _, s := range doc.Sections {
			if s.Span.Start <= r.Span.Start && r.Span.End <= s.Span.End {
				inside = true
			}
		}
		if !inside {
			t.Fatalf("record %d span %+v lies in no section", i, r.Span)
		}
		if !r.Time.IsZero() && r.Time.Location() != time.UTC {
			t.Fatalf("record %d time %v is not in UTC", i, r.Time)
		}
	}
}

// checkReadError fails t unless err rejects the source alone.
func checkReadError(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, kg.ErrRejected) {
		t.Fatalf("error %v does not wrap kg.ErrRejected", err)
	}
	if !strings.HasPrefix(err.Error(), "source in.") {
		t.Fatalf("error %q does not name the source", err)
	}
}

func FuzzLog(f *testing.F) {
	f.Add("2025-03-03T06:00:02Z INFO a\n2025-03-03T06:00:05Z WARN b\n", "", "")
	f.Add("pre\n2025-03-03 08:02:51,033 ERROR x\njava.lang.Exception: y\n\tat a.b(C.java:1)\n\n", `^\d{4}-`, "")
	f.Add("Mar  3 06:00:02 host sshd[1]: ok\r\nMar  3 06:00:03 host sshd[1]: ok\r\n", "", "")
	f.Add("10.0.0.1 - - [03/Mar/2025:06:00:02 +0000] \"GET / HTTP/1.1\" 200 5\n", "", "")
	f.Add("03.03.2025 06:00 x\n\n\n", "^[0-9]", "02.01.2006 15:04")
	f.Add("1709288100.5 a\n1709288100500 b\n[Mon Mar 03 06:00:02.1 2025] c", "(", "")
	f.Fuzz(func(t *testing.T, data, start, layout string) {
		doc, err := read(kg.KindLog, data, ingest.Options{RecordStart: start, TimeLayout: layout, Limits: ingest.Limits{MaxRecords: 1000}})
		if err != nil {
			checkReadError(t, err)
			return
		}
		checkDocument(t, doc)
		if !doc.Verbatim || len(doc.Records) == 0 {
			t.Fatalf("verbatim %v, %d records", doc.Verbatim, len(doc.Records))
		}
		for i, r := range doc.Records {
			rec := doc.Text[r.Span.Start:r.Span.End]
			if strings.TrimSpace(rec) == "" || strings.HasSuffix(rec, "\n") || (r.Span.Start > 0 && doc.Text[r.Span.Start-1] != '\n') {
				t.Fatalf("record %d %q does not cover whole lines", i, rec)
			}
		}
	})
}

func FuzzJSONL(f *testing.F) {
	f.Add("{\"message\":\"a\",\"ts\":1709288100}\n{\"message\":\"b\"}\n", "")
	f.Add("{\"details\":{\"note\":\"n\"},\"items\":[{\"name\":\"x\"},{\"name\":\"y\"}]}\n", "details.note,items.name")
	f.Add("\"s\"\n[1,\"two\",{\"k\":[true,null]}]\n", "k")
	f.Add("{\"a\":1}\n{\"a\":\n", "a")
	f.Add("{\"time\":\"Mar  3 06:00:02\",\"x\":\"\\u0000y\\r\\n\"}", "")
	f.Fuzz(func(t *testing.T, data, fields string) {
		var tf []string
		if fields != "" {
			tf = strings.Split(fields, ",")
		}
		for _, kind := range []kg.SourceKind{kg.KindJSONL, kg.KindJSON} {
			doc, err := read(kind, data, ingest.Options{TextFields: tf, Limits: ingest.Limits{MaxRecords: 1000}})
			if err != nil {
				checkReadError(t, err)
				continue
			}
			checkDocument(t, doc)
			if doc.Verbatim || len(doc.Records) == 0 {
				t.Fatalf("%s: verbatim %v, %d records", kind, doc.Verbatim, len(doc.Records))
			}
			for i, r := range doc.Records {
				if rec := doc.Text[r.Span.Start:r.Span.End]; strings.Contains(rec, "\x00") {
					t.Fatalf("%s: record %d %q holds a NUL", kind, i, rec)
				}
			}
		}
	})
}
