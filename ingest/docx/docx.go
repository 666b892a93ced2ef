package docx

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"

	"kgforge/ingest"
	"kgforge/kg"
)

func init() {
	ingest.Register(kg.KindDOCX, reader{})
}

type reader struct{}

var _ ingest.Reader = reader{}

// The parts of a DOCX container the reader reads.
const (
	documentPart = "word/document.xml"
	stylesPart   = "word/styles.xml"
)

// Read extracts the text of a Word document, cut into sections at its
// headings.
func (reader) Read(ctx context.Context, src kg.Source, data []byte, opt ingest.Options) (ingest.Document, error) {
	reject := func(format string, a ...any) error { return ingest.Rejectf(src.URI, format, a...) }
	if len(data) == 0 {
		return ingest.Document{}, reject("empty file")
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return ingest.Document{}, reject("corrupt DOCX: not a zip container: %v", err)
	}
	lim := opt.Limits.WithDefaults()
	if err := ingest.CheckZip(zr, lim); err != nil {
		return ingest.Document{}, reject("%v", err)
	}
	var document, styles *zip.File
	for _, f := range zr.File {
		switch {
		case f.Name == documentPart && document == nil:
			document = f
		case f.Name == stylesPart && styles == nil:
			styles = f
		}
	}
	if document == nil {
		return ingest.Document{}, reject("corrupt DOCX: no %s in the container (not a Word document?)", documentPart)
	}
	// Both parts share one budget: together they may not expand past
	// MaxUnzipped, whatever their headers say.
	budget := lim.MaxUnzipped
	var levels map[string]int
	if styles != nil {
		raw, err := ingest.ReadZipEntry(styles, budget)
		if err != nil {
			return ingest.Document{}, reject("%v", err)
		}
		budget -= int64(len(raw))
		if levels, err = styleLevels(raw); err != nil {
			return ingest.Document{}, reject("corrupt DOCX: %s: %v", stylesPart, err)
		}
	}
	raw, err := ingest.ReadZipEntry(document, budget)
	if err != nil {
		return ingest.Document{}, reject("%v", err)
	}
	doc, ok, err := extract(ctx, raw, levels)
	switch {
	case ctx.Err() != nil:
		return ingest.Document{}, fmt.Errorf("source %s: %w", src.URI, ctx.Err())
	case err != nil:
		return ingest.Document{}, reject("corrupt DOCX: %s: %v", documentPart, err)
	case !ok:
		return ingest.Document{}, reject("no text in the document")
	}
	doc.Source = src
	return doc, nil
}
