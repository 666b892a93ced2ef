package html

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"slices"
	"strings"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"kgforge/ingest"
	"kgforge/kg"
)

func init() {
	ingest.Register(kg.KindHTML, reader{})
}

type reader struct{}

var _ ingest.Reader = reader{}

// Read extracts the main text of an HTML page, cut into sections at its
// headings.
func (reader) Read(_ context.Context, src kg.Source, data []byte, _ ingest.Options) (ingest.Document, error) {
	text, err := decode(data)
	if err != nil {
		return ingest.Document{}, fmt.Errorf("source %s: %w: %w", src.URI, kg.ErrRejected, err)
	}
	root, err := xhtml.Parse(strings.NewReader(text))
	if err != nil {
		return ingest.Document{}, fmt.Errorf("source %s: %w: parse HTML: %w", src.URI, kg.ErrRejected, err)
	}
	doc, ok := extract(root)
	if !ok {
		return ingest.Document{}, fmt.Errorf("source %s: %w: no text in the page", src.URI, kg.ErrRejected)
	}
	doc.Source = src
	return doc, nil
}

// decode returns the page as UTF-8 text. It refuses what package ingest's
// own text check refuses (empty, binary, invalid UTF-8) except a page whose
// byte order mark or <meta> declares another charset, which it decodes.
func decode(data []byte) (string, error) {
	if len(data) == 0 {
		return "", errors.New("empty file")
	}
	if label := bomCharset(data); label != "" {
		return decodeFrom(data, label)
	}
	if slices.Contains(data[:min(len(data), 8192)], 0) {
		return "", fmt.Errorf("%w: binary content (NUL bytes)", ingest.ErrNotText)
	}
	if utf8.Valid(data) {
		return strings.TrimPrefix(string(data), "\uFEFF"), nil
	}
	label := metaCharset(data[:min(len(data), 1024)])
	_, name := charset.Lookup(label)
	switch {
	case label == "":
		return "", fmt.Errorf("%w: invalid UTF-8 at byte %d and no <meta charset> (declare the page's charset or convert it to UTF-8)", ingest.ErrNotText, ingest.InvalidAt(data))
	case name == "":
		return "", fmt.Errorf("%w: invalid UTF-8 at byte %d and unknown charset %q (convert the page to UTF-8)", ingest.ErrNotText, ingest.InvalidAt(data), label)
	case name == "utf-8", strings.HasPrefix(name, "utf-16"):
		// A <meta> that says UTF-16 means UTF-8: its bytes could not
		// have been read as ASCII otherwise (HTML's encoding sniffing).
		return "", fmt.Errorf("%w: invalid UTF-8 at byte %d though the page declares %s (convert it to UTF-8)", ingest.ErrNotText, ingest.InvalidAt(data), label)
	}
	return decodeFrom(data, label)
}

// decodeFrom decodes data from the charset named by label.
func decodeFrom(data []byte, label string) (string, error) {
	enc, name := charset.Lookup(label)
	if enc == nil {
		return "", fmt.Errorf("%w: unknown charset %q", ingest.ErrNotText, label)
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return "", fmt.Errorf("%w: decode from %s: %w", ingest.ErrNotText, name, err)
	}
	if !utf8.Valid(out) {
		return "", fmt.Errorf("%w: decode from %s: the result is not UTF-8", ingest.ErrNotText, name)
	}
	return strings.TrimPrefix(string(out), "\uFEFF"), nil
}

// bomCharset returns the charset a UTF-16 byte order mark names, or "".
// (A UTF-8 one needs no decoding.)
func bomCharset(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return "utf-16be"
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return "utf-16le"
	}
	return ""
}

// metaCharset returns the charset that a <meta charset> or a <meta
// http-equiv="Content-Type"> in head declares, or "".
func metaCharset(head []byte) string {
	z := xhtml.NewTokenizer(bytes.NewReader(head))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return ""
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			name, more := z.TagName()
			if string(name) != "meta" {
				continue
			}
			var label, content string
			contentType := false
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "charset":
					label = string(v)
				case "http-equiv":
					contentType = strings.EqualFold(strings.TrimSpace(string(v)), "content-type")
				case "content":
					content = string(v)
				}
			}
			if label != "" {
				return strings.TrimSpace(label)
			}
			if contentType {
				if _, params, err := mime.ParseMediaType(content); err == nil && params["charset"] != "" {
					return params["charset"]
				}
			}
		}
	}
}
