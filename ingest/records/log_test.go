package records_test

import (
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"kgforge/ingest"
	"kgforge/kg"
)

// recordTexts returns the text of each record of doc.
func recordTexts(doc ingest.Document) []string {
	out := make([]string, len(doc.Records))
	for i, r := range doc.Records {
		out[i] = doc.Text[r.Span.Start:r.Span.End]
	}
	return out
}

// recordTimes returns each record's time in RFC 3339, or "" for none.
func recordTimes(doc ingest.Document) []string {
	out := make([]string, len(doc.Records))
	for i, r := range doc.Records {
		if !r.Time.IsZero() {
			out[i] = r.Time.Format(time.RFC3339Nano)
		}
	}
	return out
}

const javaTrace = `2025-03-03T08:02:51.031Z ERROR [mes.quality] Weld inspection failed for batch KA-2291
2025-03-03T08:02:51.033Z ERROR [mes.quality] Failed to persist inspection report IR-30961
com.velora.mes.quality.ReportStoreException: duplicate key
	at com.velora.mes.quality.ReportStore.save(ReportStore.java:142)
Caused by: org.postgresql.util.PSQLException: ERROR: duplicate key value
	... 12 more

2025-03-03T08:03:00Z WARN  [mes.quality] Batch KA-2291 placed on quality hold
`

func TestLogReader_Records(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		start     string
		wantText  string // the document's text; empty: the input
		wantRecs  []string
		wantTimes []string
	}{
		{
			name:      "one record per line with ISO timestamps",
			data:      "2025-03-03T06:00:02.114Z INFO shift A started\n2025-03-03T06:04:19+01:00 INFO shipment KS-7781 received\n",
			wantRecs:  []string{"2025-03-03T06:00:02.114Z INFO shift A started", "2025-03-03T06:04:19+01:00 INFO shipment KS-7781 received"},
			wantTimes: []string{"2025-03-03T06:00:02.114Z", "2025-03-03T05:04:19Z"},
		},
		{
			name:      "blank lines are no records and the last line needs no newline",
			data:      "\n2025-03-03 06:00:02 a\n\n   \n2025-03-03 06:00:03 b",
			wantRecs:  []string{"2025-03-03 06:00:02 a", "2025-03-03 06:00:03 b"},
			wantTimes: []string{"2025-03-03T06:00:02Z", "2025-03-03T06:00:03Z"},
		},
		{
			name:      "byte order mark and CRLF are normalised",
			data:      "\uFEFF2025-03-03T06:00:02Z a\r\n2025-03-03T06:00:03Z b\r\n",
			wantText:  "2025-03-03T06:00:02Z a\n2025-03-03T06:00:03Z b\n",
			wantRecs:  []string{"2025-03-03T06:00:02Z a", "2025-03-03T06:00:03Z b"},
			wantTimes: []string{"2025-03-03T06:00:02Z", "2025-03-03T06:00:03Z"},
		},
		{
			name: "without record_start a stack trace line is a record of its own",
			data: "2025-03-03T08:02:51Z ERROR x\njava.lang.IllegalStateException: y\n\tat a.B.c(B.java:1)\n",
			wantRecs: []string{
				"2025-03-03T08:02:51Z ERROR x",
				"java.lang.IllegalStateException: y",
				"\tat a.B.c(B.java:1)",
			},
			wantTimes: []string{"2025-03-03T08:02:51Z", "", ""},
		},
		{
			name:  "record_start keeps a Java stack trace with its record",
			data:  javaTrace,
			start: `^\d{4}-\d{2}-\d{2}T`,
			wantRecs: []string{
				"2025-03-03T08:02:51.031Z ERROR [mes.quality] Weld inspection failed for batch KA-2291",
				"2025-03-03T08:02:51.033Z ERROR [mes.quality] Failed to persist inspection report IR-30961\n" +
					"com.velora.mes.quality.ReportStoreException: duplicate key\n" +
					"\tat com.velora.mes.quality.ReportStore.save(ReportStore.java:142)\n" +
					"Caused by: org.postgresql.util.PSQLException: ERROR: duplicate key value\n" +
					"\t... 12 more",
				"2025-03-03T08:03:00Z WARN  [mes.quality] Batch KA-2291 placed on quality hold",
			},
			wantTimes: []string{"2025-03-03T08:02:51.031Z", "2025-03-03T08:02:51.033Z", "2025-03-03T08:03:00Z"},
		},
		{
			name:      "lines before the first match form a record of their own",
			data:      "log opened\nversion 3.1\n[2025-03-03 06:00:02] start\n  detail\n",
			start:     `^\[\d{4}`,
			wantRecs:  []string{"log opened\nversion 3.1", "[2025-03-03 06:00:02] start\n  detail"},
			wantTimes: []string{"", "2025-03-03T06:00:02Z"},
		},
		{
			name:      "an unanchored record_start matches anywhere in the line",
			data:      "x BEGIN 1\ny\nz BEGIN 2\n",
			start:     `BEGIN`,
			wantRecs:  []string{"x BEGIN 1\ny", "z BEGIN 2"},
			wantTimes: []string{"", ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := read(kg.KindLog, tt.data, ingest.Options{RecordStart: tt.start})
			if err != nil {
				t.Fatal(err)
			}
			checkDocument(t, doc)
			wantText := tt.wantText
			if wantText == "" {
				wantText = tt.data
			}
			if doc.Text != wantText || !doc.Verbatim {
				t.Errorf("text = %q (verbatim %v), want %q verbatim", doc.Text, doc.Verbatim, wantText)
			}
			if len(doc.Sections) != 1 || doc.Sections[0].Span != (kg.Span{End: len(doc.Text)}) {
				t.Errorf("sections = %+v, want one over the whole text", doc.Sections)
			}
			if got := recordTexts(doc); !slices.Equal(got, tt.wantRecs) {
				t.Errorf("records =\n%q\nwant\n%q", got, tt.wantRecs)
			}
			if got := recordTimes(doc); !slices.Equal(got, tt.wantTimes) {
				t.Errorf("times = %q, want %q", got, tt.wantTimes)
			}
		})
	}
}

func TestLogReader_Times(t *testing.T) {
	tests := []struct {
		name   string
		line   string
		layout string
		noMod  bool // the source has no modification time
		want   string
	}{
		{name: "RFC 3339 UTC", line: "2025-03-03T06:00:02Z INFO x", want: "2025-03-03T06:00:02Z"},
		{name: "RFC 3339 with fraction and offset", line: "2025-03-03T06:00:02.123456+01:00 INFO x", want: "2025-03-03T05:00:02.123456Z"},
		{name: "ISO without zone is UTC", line: "2025-03-03T06:00:02 INFO x", want: "2025-03-03T06:00:02Z"},
		{name: "ISO with space", line: "2025-03-03 06:00:02 INFO x", want: "2025-03-03T06:00:02Z"},
		{name: "ISO with space and comma millis", line: "2025-03-03 06:00:02,250 - mes - INFO - x", want: "2025-03-03T06:00:02.25Z"},
		{name: "ISO with space before a numeric zone", line: "2025-03-03 06:00:02 -0500 x", want: "2025-03-03T11:00:02Z"},
		{name: "ISO with hour-only zone", line: "2025-03-03T06:00:02+02 x", want: "2025-03-03T04:00:02Z"},
		{name: "ISO without seconds", line: "2025-03-03 06:00 x", want: "2025-03-03T06:00:00Z"},
		{name: "ISO in brackets", line: "[2025-03-03T06:00:02.5Z] x", want: "2025-03-03T06:00:02.5Z"},
		{name: "Go log package", line: "2025/03/03 06:00:02 x", want: "2025-03-03T06:00:02Z"},
		{name: "RFC 5424 syslog", line: "<34>1 2025-03-03T06:00:02.003Z mes01 app - - x", want: "2025-03-03T06:00:02.003Z"},
		{name: "syslog takes the year of the file", line: "Mar  3 06:00:02 mes01 sshd[812]: accepted", want: "2025-03-03T06:00:02Z"},
		{name: "syslog two-digit day", line: "Feb 27 23:59:59 mes01 cron[1]: x", want: "2025-02-27T23:59:59Z"},
		{name: "syslog after the file's date is last year's", line: "Dec 31 23:59:59 mes01 x", want: "2024-12-31T23:59:59Z"},
		{name: "syslog without a modification time has no time", line: "Mar  3 06:00:02 mes01 x", noMod: true},
		{name: "syslog with priority", line: "<13>Mar  3 06:00:02 mes01 x", want: "2025-03-03T06:00:02Z"},
		{name: "Apache bracket at start", line: "[03/Mar/2025:06:00:02 +0100] GET /", want: "2025-03-03T05:00:02Z"},
		{name: "NCSA common log format", line: `10.1.2.3 - ines [03/Mar/2025:06:00:02 -0700] "GET /mes HTTP/1.1" 200 512`, want: "2025-03-03T13:00:02Z"},
		{name: "Apache error log", line: "[Mon Mar 03 06:00:02.123456 2025] [core:error] [pid 7] x", want: "2025-03-03T06:00:02.123456Z"},
		{name: "epoch seconds", line: "1740981602 INFO x", want: "2025-03-03T06:00:02Z"},
		{name: "epoch seconds with fraction", line: "1740981602.25 INFO x", want: "2025-03-03T06:00:02.25Z"},
		{name: "epoch milliseconds", line: "1740981602250,INFO,x", want: "2025-03-03T06:00:02.25Z"},
		{name: "explicit layout", line: "03.03.2025 06:00:02 INFO x", layout: "02.01.2006 15:04:05", want: "2025-03-03T06:00:02Z"},
		{name: "explicit layout with zone", line: "2025-03-03 06:00:02.5 +0100|INFO|x", layout: "2006-01-02 15:04:05 -0700", want: "2025-03-03T05:00:02.5Z"},
		{name: "explicit layout RFC 3339", line: "2025-03-03T06:00:02+01:00 x", layout: time.RFC3339, want: "2025-03-03T05:00:02Z"},
		{name: "explicit layout without year", line: "03/03 06:00:02 x", layout: "02/01 15:04:05", want: "2025-03-03T06:00:02Z"},
		{name: "explicit layout that does not match", line: "2025-03-03T06:00:02Z x", layout: "02.01.2006 15:04:05"},
		{name: "explicit layout replaces detection", line: "Mar  3 06:00:02 x", layout: time.RFC3339},
		{name: "a date in the message is not the record's", line: "INFO shipment KS-7794 due 2025-03-05T10:00:00Z"},
		{name: "a level before the date is no timestamp", line: "INFO 2025-03-03T06:00:02Z x"},
		{name: "no month 13", line: "2025-13-03T06:00:02Z x"},
		{name: "a date glued to a word", line: "2025-03-03T06:00:02Zulu x"},
		{name: "a date without a time", line: "2025-03-03 shift report"},
		{name: "nine digits are no epoch", line: "174098160 x"},
		{name: "a dotted number is no epoch", line: "1740981602.x y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := kg.Source{URI: "t.log", Kind: kg.KindLog}
			if !tt.noMod {
				src.Modified = time.Date(2025, 3, 4, 12, 0, 0, 0, time.FixedZone("WET", 0))
			}
			doc, err := ingest.ReadDocument(t.Context(), src, []byte(tt.line+"\n"), ingest.Options{TimeLayout: tt.layout})
			if err != nil {
				t.Fatal(err)
			}
			checkDocument(t, doc)
			if got := recordTimes(doc); len(got) != 1 || got[0] != tt.want {
				t.Errorf("times = %q, want [%q]", got, tt.want)
			}
		})
	}
}

func TestLogReader_Rejects(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		opt     ingest.Options
		want    string
		notText bool
	}{
		{name: "empty file", data: "", want: "empty file"},
		{name: "binary", data: "\x7fELF\x02\x01\x01\x00\x00\x00", want: "binary content", notText: true},
		{name: "invalid UTF-8", data: "2025-03-03 ok\nOpera\xe7\xe3o\n", want: "invalid UTF-8 at byte 19", notText: true},
		{name: "only blank lines", data: "\n \n\t\n", want: "no records"},
		{name: "invalid record_start", data: "a\n", opt: ingest.Options{RecordStart: `^(\d+`}, want: "record_start \"^(\\\\d+\" is not a valid regular expression"},
		{name: "more lines than max_records", data: "a\nb\nc\n", opt: ingest.Options{Limits: ingest.Limits{MaxRecords: 2}}, want: "more than 2 records"},
		{name: "more records than max_records", data: "S a\n x\nS b\nS c\n", opt: ingest.Options{RecordStart: "^S", Limits: ingest.Limits{MaxRecords: 2}}, want: "more than 2 records"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := read(kg.KindLog, tt.data, tt.opt)
			if err == nil {
				t.Fatal("read succeeded, want a reject")
			}
			checkReadError(t, err)
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to say %q", err, tt.want)
			}
			if got := errors.Is(err, ingest.ErrNotText); got != tt.notText {
				t.Errorf("errors.Is(err, ingest.ErrNotText) = %v, want %v", got, tt.notText)
			}
		})
	}
}

func TestLogReader_MaxRecordsIsInclusive(t *testing.T) {
	doc, err := read(kg.KindLog, "a\nb\n", ingest.Options{Limits: ingest.Limits{MaxRecords: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Records) != 2 {
		t.Errorf("%d records, want 2", len(doc.Records))
	}
}

func TestLogReader_PlantLog(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/plant.log")
	if err != nil {
		t.Fatal(err)
	}
	starts := regexp.MustCompile(`(?m)^\d{4}-\d{2}-\d{2}T`)
	lines := strings.Count(string(data), "\n")
	tests := []struct {
		name  string
		start string
		want  int
	}{
		{name: "one record per line", want: lines},
		{name: "records start at a timestamp", start: starts.String(), want: len(starts.FindAllIndex(data, -1))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := read(kg.KindLog, string(data), ingest.Options{RecordStart: tt.start})
			if err != nil {
				t.Fatal(err)
			}
			checkDocument(t, doc)
			if doc.Text != string(data) {
				t.Error("text is not the file's text")
			}
			if len(doc.Records) != tt.want {
				t.Fatalf("%d records, want %d", len(doc.Records), tt.want)
			}
			for i, r := range doc.Records {
				rec := doc.Text[r.Span.Start:r.Span.End]
				if tt.start != "" && r.Time.IsZero() {
					t.Errorf("record %d %q has no time", i, rec)
				}
				if i > 0 && !r.Time.IsZero() && r.Time.Before(doc.Records[i-1].Time) {
					t.Errorf("record %d time %v before the previous record's", i, r.Time)
				}
			}
			if tt.start == "" {
				return
			}
			// The failed report's record holds its whole stack trace, and
			// its line numbers are the file's.
			i := slices.IndexFunc(recordTexts(doc), func(s string) bool { return strings.Contains(s, "IR-30961") })
			if i < 0 {
				t.Fatal("no record mentions IR-30961")
			}
			r := doc.Records[i]
			rec := doc.Text[r.Span.Start:r.Span.End]
			if !strings.HasSuffix(rec, "\t... 12 more") || strings.Count(rec, "\n") != 7 {
				t.Errorf("record %q: want the report line and its 7 trace lines", rec)
			}
			if line := strings.Count(doc.Text[:r.Span.Start], "\n") + 1; line != 11 {
				t.Errorf("record starts on line %d, want 11", line)
			}
			if want := time.Date(2025, 3, 3, 8, 2, 51, 33e6, time.UTC); !r.Time.Equal(want) {
				t.Errorf("record time %v, want %v", r.Time, want)
			}
		})
	}
}
