package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	lpdf "github.com/ledongthuc/pdf"

	"kgforge/ingest"
	"kgforge/kg"
)

func init() {
	ingest.Register(kg.KindPDF, reader{})
}

// MaxPages is the most pages a PDF may have. A longer one is rejected
// before any page is read: it bounds the work one source can make a build do.
const MaxPages = 10_000

// Errors that rejections wrap, besides kg.ErrRejected, so that callers can
// tell the cases that need the user to act on the file.
var (
	// ErrNoTextLayer means no page of the PDF has any text: it is a scan
	// (or holds only drawings) and must go through OCR first.
	ErrNoTextLayer = errors.New("no text layer")
	// ErrEncrypted means the PDF cannot be read without a password, or is
	// encrypted with a scheme the parser does not support.
	ErrEncrypted = errors.New("encrypted")
)

const (
	maxTreeNodes    = 4 * MaxPages // page-tree nodes visited, intermediate ones included
	maxTreeDepth    = 64
	maxStreamBytes  = 64 << 20  // one content stream, decompressed
	maxContentBytes = 1 << 30   // all content streams of one PDF, decompressed, forms each time drawn
	maxContentOps   = 100 << 20 // operators of all content streams of one PDF
)

type reader struct{}

var _ ingest.Reader = reader{}

// Read extracts the text of every page of a PDF, one section per page with
// text. It rejects a PDF that is encrypted, corrupt, has more than MaxPages
// pages or no text on any page, and turns a panic of the parser into a
// rejection. It checks ctx between pages and while it reads a page.
func (reader) Read(ctx context.Context, src kg.Source, data []byte, opt ingest.Options) (doc ingest.Document, err error) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		doc = ingest.Document{}
		var a abort
		if e, ok := p.(abort); ok {
			a = e
		} else {
			a = abort{fmt.Errorf("malformed PDF (the parser failed: %v)", p)}
		}
		err = wrap(src, a.err)
	}()
	text, sections, err := extract(ctx, data, opt.Limits.WithDefaults().MaxTextBytes)
	if err != nil {
		return ingest.Document{}, wrap(src, err)
	}
	return ingest.Document{Source: src, Text: text, Sections: sections}, nil
}

// wrap names the source in err and marks it rejected unless it is the
// context's error, which must stop the run rather than skip the source.
func wrap(src kg.Source, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("source %s: %w", src.URI, err)
	}
	return fmt.Errorf("source %s: %w: %w", src.URI, kg.ErrRejected, err)
}

// abort carries an error out of the content-stream callbacks, which can
// only stop by panicking; Read recovers it.
type abort struct{ err error }

// extract reads the pages of data and returns the document's text and
// sections; an error is the reason to reject the file, or ctx's error.
func extract(ctx context.Context, data []byte, maxText int64) (string, []ingest.Section, error) {
	if len(data) == 0 {
		return "", nil, errors.New("empty file")
	}
	data = repairEnds(data)
	r, err := lpdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", nil, openError(err)
	}
	root := r.Trailer().Key("Root").Key("Pages")
	if n := root.Key("Count").Int64(); n > MaxPages {
		return "", nil, fmt.Errorf("%d pages is over the limit of %d (split the file)", n, MaxPages)
	}
	pages, err := pageList(root)
	if err != nil {
		return "", nil, err
	}
	if len(pages) == 0 {
		return "", nil, errors.New("the PDF has no pages")
	}
	var (
		b        strings.Builder
		sections []ingest.Section
		w        = walker{maxText: maxText, textLeft: maxText, opsLeft: maxContentOps, streamLeft: maxContentBytes}
	)
	for i, page := range pages {
		if err := ctx.Err(); err != nil {
			return "", nil, err
		}
		text, err := w.page(ctx, page)
		if err != nil {
			return "", nil, fmt.Errorf("page %d: %w", i+1, err)
		}
		if text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		start := b.Len()
		b.WriteString(text)
		if int64(b.Len()) > maxText {
			return "", nil, fmt.Errorf("its text passes the limit of %d bytes at page %d", maxText, i+1)
		}
		sections = append(sections, ingest.Section{Page: i + 1, Span: kg.Span{Start: start, End: b.Len()}})
	}
	if len(sections) == 0 {
		return "", nil, noText(len(pages))
	}
	return b.String(), sections, nil
}

func noText(pages int) error {
	if pages == 1 {
		return fmt.Errorf("%w on its only page (a scanned PDF; run OCR first)", ErrNoTextLayer)
	}
	return fmt.Errorf("%w on any of its %d pages (a scanned PDF; run OCR first)", ErrNoTextLayer, pages)
}

// openError says why the parser could not open a file.
func openError(err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, lpdf.ErrInvalidPassword):
		return fmt.Errorf("%w with a password (save an unprotected copy and read that)", ErrEncrypted)
	case strings.Contains(msg, "encryption"):
		return fmt.Errorf("%w with an unsupported scheme (%s; save an unprotected copy and read that)", ErrEncrypted, msg)
	case strings.Contains(msg, "%%EOF"):
		return fmt.Errorf("truncated or not a PDF: %s", msg)
	}
	return fmt.Errorf("corrupt PDF: %s", msg)
}

// repairEnds fixes two harmless defects the parser refuses: bytes after the
// last %%EOF, and a header other than "%PDF-1.x" and an end of line (PDF 2.0,
// or no newline). It copies data only when the header needs the fix.
func repairEnds(data []byte) []byte {
	if i := bytes.LastIndex(data, []byte("%%EOF")); i >= 0 {
		data = data[:i+len("%%EOF")]
	}
	ok := len(data) > 8 && bytes.HasPrefix(data, []byte("%PDF-1.")) &&
		data[7] >= '0' && data[7] <= '7' && (data[8] == '\r' || data[8] == '\n')
	if ok || len(data) <= 8 || !bytes.HasPrefix(data, []byte("%PDF-")) {
		return data
	}
	fixed := bytes.Clone(data)
	copy(fixed, "%PDF-1.7\n")
	return fixed
}

// pageList walks the page tree depth first and returns the page
// dictionaries in order. The walk is bounded, so a tree whose kids point
// back up cannot make it loop.
func pageList(root lpdf.Value) ([]lpdf.Value, error) {
	if root.Kind() != lpdf.Dict {
		return nil, errors.New("corrupt PDF: no page tree")
	}
	type node struct {
		v     lpdf.Value
		depth int
	}
	var pages []lpdf.Value
	stack := []node{{root, 0}}
	for visits := 0; len(stack) > 0; visits++ {
		if visits > maxTreeNodes {
			return nil, fmt.Errorf("corrupt PDF: page tree has more than %d nodes (a cycle?)", maxTreeNodes)
		}
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.v.Kind() != lpdf.Dict {
			continue
		}
		kids := n.v.Key("Kids")
		if n.v.Key("Type").Name() == "Page" || kids.Kind() != lpdf.Array {
			pages = append(pages, n.v)
			if len(pages) > MaxPages {
				return nil, fmt.Errorf("more than %d pages (split the file)", MaxPages)
			}
			continue
		}
		if n.depth >= maxTreeDepth {
			return nil, fmt.Errorf("corrupt PDF: page tree deeper than %d (a cycle?)", maxTreeDepth)
		}
		for i := kids.Len() - 1; i >= 0; i-- {
			stack = append(stack, node{kids.Index(i), n.depth + 1})
		}
		if len(stack) > maxTreeNodes {
			return nil, fmt.Errorf("corrupt PDF: page tree has more than %d nodes", maxTreeNodes)
		}
	}
	return pages, nil
}

// inherited returns a page attribute that may be set on the page or on one
// of its ancestors (Resources), following at most maxTreeDepth parents.
func inherited(page lpdf.Value, key string) lpdf.Value {
	v := page
	for range maxTreeDepth {
		if v.Kind() != lpdf.Dict {
			break
		}
		if x := v.Key(key); !x.IsNull() {
			return x
		}
		v = v.Key("Parent")
	}
	return lpdf.Value{}
}
