package tabular

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/unicode"
)

func TestSniff(t *testing.T) {
	le := unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewEncoder()
	be := unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewEncoder()
	utf16 := func(enc interface{ String(string) (string, error) }, s string) []byte {
		out, err := enc.String(s)
		if err != nil {
			t.Fatal(err)
		}
		return []byte(out)
	}
	tests := []struct {
		name string
		head []byte
		want Dialect
	}{
		{"empty", nil, Dialect{Encoding: UTF8}},
		{"ascii", []byte("a,b\n1,2\n"), Dialect{Encoding: UTF8}},
		{"utf-8", []byte("city\nÁgueda\n"), Dialect{Encoding: UTF8}},
		{"utf-8 cut at the end of head", []byte("city\n\xC3"), Dialect{Encoding: UTF8}},
		{"utf-8 bom", []byte("\xEF\xBB\xBFa\n"), Dialect{Encoding: UTF8, BOM: true}},
		{"utf-16le bom", []byte("\xFF\xFEa\x00"), Dialect{Encoding: UTF16LE, BOM: true}},
		{"utf-16be bom", []byte("\xFE\xFF\x00a"), Dialect{Encoding: UTF16BE, BOM: true}},
		{"utf-16le by nuls", utf16(le, "id,city\n1,Águeda\n"), Dialect{Encoding: UTF16LE}},
		{"utf-16be by nuls", utf16(be, "id,city\n1,Águeda\n"), Dialect{Encoding: UTF16BE}},
		{"latin-1", []byte("city\n\xC1gueda\n"), Dialect{Encoding: Windows1252}},
		{"windows-1252", []byte("\x80 5\n"), Dialect{Encoding: Windows1252}},
		{"binary nuls everywhere", []byte("\x00\x00\x00\x00\x01\x00\x00\x00"), Dialect{Encoding: UTF8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sniff(tt.head); got != tt.want {
				t.Errorf("Sniff(%q) = %+v, want %+v", tt.head, got, tt.want)
			}
		})
	}
}

func TestScan_ChecksTheWholeFile(t *testing.T) {
	// Valid UTF-8 for far longer than Sniff looks, then one Latin-1 byte;
	// and a character cut by every read boundary along the way.
	body := strings.Repeat("Guimarães;Águeda;São João\n", 8000)
	tests := []struct {
		name     string
		data     string
		want     Encoding
		badLine  int64
		badByte  byte
		rejected string
	}{
		{"utf-8 throughout", body, UTF8, 0, 0, ""},
		{"latin-1 past the head", body + "Guimar\xE3es\n", Windows1252, 8001, 0xE3, ""},
		{"cut short at the end", body + "\xC3", Windows1252, 8001, 0xC3, ""},
		{"nul past the head is not binary", body + "\x00", UTF8, 0, 0, ""},
		{"nul in the head", "a,b\n\x00", "", 0, 0, "binary content: a NUL character at offset 4"},
		{"blank", "\r\n \n", "", 0, 0, errBlank.Error()},
		{"blank then text past the head", strings.Repeat("\n", 3*SniffLen) + "a\n", UTF8, 0, 0, ""},
		{"bom and a bad byte past the head", "\xEF\xBB\xBF" + body + "\xE3\n", UTF8, 8001, 0xE3, ""},
		{"bom and blank", "\xEF\xBB\xBF" + strings.Repeat("\r\n", SniffLen), "", 0, 0, errBlank.Error()},
		{"over the limit", body + body, "", 0, 0, "over the limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scan(strings.NewReader(tt.data), int64(len(body))+100)
			if tt.rejected != "" {
				if err == nil || !strings.Contains(err.Error(), tt.rejected) {
					t.Fatalf("err = %v, want %q", err, tt.rejected)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Encoding != tt.want || got.BadLine != tt.badLine || got.BadByte != tt.badByte || got.Invalid != (got.BOM && tt.badLine > 0) {
				t.Errorf("scan = %+v, want %s, bad byte 0x%02X on line %d", got, tt.want, tt.badByte, tt.badLine)
			}
		})
	}
}

// FuzzSniffCSV checks the encoding detection and transcoding every
// delimited file goes through before DuckDB reads it.
func FuzzSniffCSV(f *testing.F) {
	for _, s := range []string{
		"", "a,b\n1,2\n", "\xEF\xBB\xBFa\n", "\xFF\xFEa\x00,\x00b\x00", "\xFE\xFF\x00a\x00,",
		"a\x00,\x00b\x00\n\x00", "city\n\xC1gueda\n", "\x80\x93\x94\x81", "é\xC3", "\xFF\xFE\xFF",
		"\xFF\xFE\x00\xD8a\x00", "\x00\x00\x00", "\n\r\n \t",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = Sniff(data)
		sc, err := scan(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := transcode(&out, bytes.NewReader(data), sc); err != nil {
			t.Fatalf("transcode from %s: %v", sc.Encoding, err)
		}
		if !utf8.Valid(out.Bytes()) {
			t.Fatalf("%s gave invalid UTF-8 %q", sc.Encoding, out.Bytes())
		}
		if sc.Encoding == UTF8 && !sc.Invalid && !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("UTF-8 input changed: %q -> %q", data, out.Bytes())
		}
		ascii := !bytes.ContainsFunc(data, func(r rune) bool { return r >= utf8.RuneSelf })
		if ascii && !bytes.Contains(data, []byte{0}) && sc.Encoding != UTF8 {
			t.Fatalf("ASCII input read as %s", sc.Encoding)
		}
		if sc.Encoding == Windows1252 && utf8.RuneCount(out.Bytes()) != len(data) {
			t.Fatalf("Windows-1252: %d bytes became %d characters", len(data), utf8.RuneCount(out.Bytes()))
		}
	})
}
