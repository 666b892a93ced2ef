package ingest

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"kgforge/kg"
)

// EstimateTokens is the token count CheckBudget expects of text without
// tokenizing it: four bytes per token, close for English prose (cl100k_base
// gives 4.2 on the example corpus) and an underestimate for text in
// non-Latin scripts.
func EstimateTokens(text string) int { return (len(text) + 3) / 4 }

// CheckBudget rejects a document before it is chunked when chunking it would
// cost more than one source may: more estimated tokens than lim.MaxTokens,
// or a run of text without white space longer than lim.MaxWordBytes, which
// the chunker cannot cut (a chunk never cuts a word) and which would become
// one chunk too large for any model. It reads the text once and tokenizes
// nothing, so a huge source is refused in the time it takes to scan it.
func CheckBudget(doc Document, lim Limits) error {
	lim = lim.WithDefaults()
	uri := doc.Source.URI
	if n := EstimateTokens(doc.Text); n > lim.MaxTokens {
		return Rejectf(uri, "about %d tokens (%d bytes of text, 4 bytes a token), more than limits.max_tokens %d; split the source or raise limits.max_tokens in the pipeline file",
			n, len(doc.Text), lim.MaxTokens)
	}
	if start, n := longestRun(doc.Text); n > lim.MaxWordBytes {
		return Rejectf(uri, "%d bytes without white space at %s, more than limits.max_word_bytes %d: a chunk never cuts a word, so this one would be a chunk too large for the model (encoded or minified data?); remove it or raise limits.max_word_bytes in the pipeline file",
			n, where(doc, start), lim.MaxWordBytes)
	}
	return nil
}

// ChunkWithin cuts doc as Chunk does, within the limits of one source: it
// checks the budget first (CheckBudget), and stops and rejects the source
// as soon as it has more than lim.MaxChunks chunks, before any of them is
// sent to a model.
func ChunkWithin(doc Document, opt ChunkOptions, lim Limits) ([]kg.Chunk, error) {
	lim = lim.WithDefaults()
	if err := CheckBudget(doc, lim); err != nil {
		return nil, err
	}
	opt.maxChunks = lim.MaxChunks
	chunks := Chunk(doc, opt)
	if len(chunks) <= lim.MaxChunks {
		return chunks, nil
	}
	end := chunks[lim.MaxChunks-1].Span.End
	return nil, Rejectf(doc.Source.URI, "more than limits.max_chunks %d chunks: the first %d end at byte %d of %d, so about %d in all; split the source, use larger chunks or raise limits.max_chunks in the pipeline file",
		lim.MaxChunks, lim.MaxChunks, end, len(doc.Text), int(float64(lim.MaxChunks)*float64(len(doc.Text))/float64(max(end, 1))))
}

// longestRun returns the start and the length in bytes of the longest run
// of text without white space (as unicode.IsSpace says, which is where the
// chunker cuts words).
func longestRun(text string) (start, n int) {
	runStart := 0
	for i := 0; i < len(text); {
		r, w := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(text[i:])
		}
		if unicode.IsSpace(r) {
			if i-runStart > n {
				start, n = runStart, i-runStart
			}
			runStart = i + w
		}
		i += w
	}
	if len(text)-runStart > n {
		start, n = runStart, len(text)-runStart
	}
	return start, n
}

// where names an offset of the document's text in the terms a user can
// find it by: the line for text that is the file's own, else the byte.
func where(doc Document, off int) string {
	if doc.Verbatim {
		return "line " + strconv.Itoa(1+strings.Count(doc.Text[:off], "\n"))
	}
	return "byte " + strconv.Itoa(off) + " of its text"
}
