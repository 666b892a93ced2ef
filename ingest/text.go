package ingest

import (
	"context"
	"regexp"
	"strings"

	"kgforge/kg"
)

func init() {
	Register(kg.KindText, textReader{})
	Register(kg.KindMarkdown, markdownReader{})
}

type textReader struct{}

var _ Reader = textReader{}

// Read returns the file's text as one section.
func (textReader) Read(_ context.Context, src kg.Source, data []byte, _ Options) (Document, error) {
	if err := CheckText(src, data); err != nil {
		return Document{}, err
	}
	text := NormalizeNewlines(string(data))
	return Document{Source: src, Text: text, Sections: []Section{{Span: kg.Span{End: len(text)}}}, Verbatim: true}, nil
}

type markdownReader struct{}

var _ Reader = markdownReader{}

var atxHeading = regexp.MustCompile(`^(#{1,6})[ \t]+(.+?)[ \t#]*$`)

// Read keeps the Markdown text as it is and cuts it into sections at ATX
// headings outside fenced code blocks; a section's path is the chain of
// headings above it.
func (markdownReader) Read(_ context.Context, src kg.Source, data []byte, _ Options) (Document, error) {
	if err := CheckText(src, data); err != nil {
		return Document{}, err
	}
	text := NormalizeNewlines(string(data))
	var (
		sections []Section
		stack    []string // heading titles by level-1
		start    int
		path     string
		fence    string
	)
	pos := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		trimmed := strings.TrimRight(line, "\n")
		switch {
		case fence != "":
			if strings.HasPrefix(strings.TrimSpace(trimmed), fence) {
				fence = ""
			}
		case strings.HasPrefix(strings.TrimSpace(trimmed), "```"), strings.HasPrefix(strings.TrimSpace(trimmed), "~~~"):
			fence = strings.TrimSpace(trimmed)[:3]
		default:
			if m := atxHeading.FindStringSubmatch(trimmed); m != nil {
				if pos > start {
					sections = append(sections, Section{Path: path, Span: kg.Span{Start: start, End: pos}})
				}
				level := len(m[1])
				for len(stack) < level {
					stack = append(stack, "")
				}
				stack = append(stack[:level-1], m[2])
				path = joinPath(stack)
				start = pos
			}
		}
		pos += len(line)
	}
	if pos > start {
		sections = append(sections, Section{Path: path, Span: kg.Span{Start: start, End: pos}})
	}
	return Document{Source: src, Text: text, Sections: sections, Verbatim: true}, nil
}

func joinPath(stack []string) string {
	parts := make([]string, 0, len(stack))
	for _, s := range stack {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " > ")
}

// NormalizeNewlines drops a byte order mark and turns CRLF into LF, so that
// the lines of the text are the lines of the file.
func NormalizeNewlines(s string) string {
	s = strings.TrimPrefix(s, "\uFEFF")
	return strings.ReplaceAll(s, "\r\n", "\n")
}
