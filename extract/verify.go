package extract

import (
	"unicode/utf8"

	"kgforge/kg"
)

// Reasons Verify drops a stored triplet or entity for, besides grounding's.
const (
	// DropOtherChunk: the triplet or entity names another chunk than the
	// one it is checked against.
	DropOtherChunk = "other_chunk"
	// DropNoSentence: the chunk has no sentence, so extraction asks the
	// model nothing about it and keeps nothing from it.
	DropNoSentence = "chunk_has_no_sentence"
	// DropNotAsGrounded: grounding its own fields gives another triplet or
	// entity (another id, type, model, prompt version, description or
	// validity), or a span of it does not hold what it names, or its
	// confidence is above what its evidence earns.
	DropNotAsGrounded = "not_as_grounded"
)

// Drop is a stored triplet or entity that Verify did not keep, and why.
type Drop struct {
	ID     string // the triplet's or the mention's id
	Reason string // a grounding drop reason (DropEvidenceNotFound, …) or one of Verify's
}

// Verify checks what an extraction of chunk c kept, read back from where
// it was stored (which someone other than this extractor could have
// written), as Process checks a reply of the model: each triplet and
// entity is grounded again from its own fields (names, types, predicate,
// evidence) against the chunk's text, with this extractor's options,
// schema and worked examples, and kept only when grounding keeps it and
// makes the same of it. A stored span stands where it holds what it
// names (grounding a quote again may find the same words earlier in the
// chunk), and a stored confidence where it is no higher than grounding
// gives. The triplets' and entities' spans are in the source's text, as
// Process returns them. Verify is safe for concurrent use.
func (e *Extractor) Verify(c kg.Chunk, r Result) (Result, []Drop) {
	var kept Result
	var drops []Drop
	if len(r.Triplets) == 0 && len(r.Entities) == 0 {
		return kept, nil
	}
	asks := len(Sentences(c.Text)) > 0
	seen := map[string]bool{}
	for _, t := range r.Triplets {
		reason := DropNoSentence
		if asks {
			reason = e.verifyTriplet(c, t)
		}
		if reason == "" && seen[t.ID] {
			reason = DropDuplicate
		}
		if reason != "" {
			drops = append(drops, Drop{ID: t.ID, Reason: reason})
			continue
		}
		seen[t.ID] = true
		kept.Triplets = append(kept.Triplets, t)
	}
	named := map[string]bool{}
	for _, m := range r.Entities {
		reason := DropNoSentence
		if asks {
			reason = e.verifyEntity(c, m)
		}
		if reason == "" && named[kg.NormalizeName(m.Surface)] {
			reason = DropDuplicate
		}
		if reason != "" {
			drops = append(drops, Drop{ID: m.ID, Reason: reason})
			continue
		}
		named[kg.NormalizeName(m.Surface)] = true
		kept.Entities = append(kept.Entities, m)
	}
	return kept, drops
}

// verifyTriplet returns why t is not what grounding makes of its own
// fields in c, or "".
func (e *Extractor) verifyTriplet(c kg.Chunk, t kg.Triplet) string {
	if t.ChunkID != c.ID || t.Subject.ChunkID != c.ID || t.Object.ChunkID != c.ID {
		return DropOtherChunk
	}
	g, reason := e.groundTriplet(c, RawTriplet{
		Subject: t.Subject.Surface, SubjectType: t.Subject.Type, Predicate: t.Predicate,
		Object: t.Object.Surface, ObjectType: t.Object.Type, Evidence: t.Evidence,
	})
	if reason != "" {
		return reason
	}
	g.EvidenceSpan, g.Subject.Span, g.Object.Span = toSource(c, g.EvidenceSpan), toSource(c, g.Subject.Span), toSource(c, g.Object.Span)
	if quoteAt(c, t.EvidenceSpan, t.Evidence) {
		g.EvidenceSpan = t.EvidenceSpan
	}
	if nameAt(c, t.Subject.Span, t.Subject.Surface) {
		g.Subject.Span = t.Subject.Span
	}
	if nameAt(c, t.Object.Span, t.Object.Surface) {
		g.Object.Span = t.Object.Span
	}
	if t.Confidence >= 0 && t.Confidence <= g.Confidence { // NaN is neither
		g.Confidence = t.Confidence
	}
	if g != t {
		return DropNotAsGrounded
	}
	return ""
}

// verifyEntity returns why m is not what grounding makes of its own
// fields in c, or "".
func (e *Extractor) verifyEntity(c kg.Chunk, m kg.Mention) string {
	if m.ChunkID != c.ID {
		return DropOtherChunk
	}
	g, reason := e.groundEntity(c, RawEntity{Name: m.Surface, Type: m.Type, Description: m.Description})
	if reason != "" {
		return reason
	}
	g.Span = toSource(c, g.Span)
	if nameAt(c, m.Span, m.Surface) {
		g.Span = m.Span
	}
	if g != m {
		return DropNotAsGrounded
	}
	return ""
}

// toSource turns a span local to c's text into one in the source's text.
func toSource(c kg.Chunk, s kg.Span) kg.Span {
	return kg.Span{Start: c.Span.Start + s.Start, End: c.Span.Start + s.End}
}

// local returns the part of c's text at s, a span in the source's text;
// ok is false when s is not inside the chunk or cuts a character.
func local(c kg.Chunk, s kg.Span) (string, bool) {
	start, end := s.Start-c.Span.Start, s.End-c.Span.Start
	if start < 0 || end < start || end > len(c.Text) {
		return "", false
	}
	aligned := func(i int) bool { return i == len(c.Text) || utf8.RuneStart(c.Text[i]) }
	if !aligned(start) || !aligned(end) {
		return "", false
	}
	return c.Text[start:end], true
}

// quoteAt reports whether c's text at s is quote, verbatim: grounding
// stores the chunk's own words as the evidence.
func quoteAt(c kg.Chunk, s kg.Span, quote string) bool {
	text, ok := local(c, s)
	return ok && quote != "" && text == quote
}

// nameAt reports whether c's text at s is name, up to case and white
// space, as grounding locates names.
func nameAt(c kg.Chunk, s kg.Span, name string) bool {
	text, ok := local(c, s)
	if !ok || text == "" {
		return false
	}
	sp, m := locateFolded(text, name)
	return m != MatchNone && sp == kg.Span{Start: 0, End: len(text)}
}
