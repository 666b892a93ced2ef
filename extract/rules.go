package extract

import (
	"slices"
	"strings"
	"unicode"

	"kgforge/kg"
)

// The rules for a real fact. Grounding finds a triplet's evidence, subject
// and object in the chunk; these rules then drop a triplet that is found but
// is no fact: a subject or object that is a sentence or a clause rather than
// a name, a predicate made of the names it joins, a subject or object that
// its evidence does not name, a triplet that joins a name to itself, and a
// name copied from the few-shot examples of the prompt. Each is a drop
// reason of its own.
const (
	DropSubjectIsClause      = "subject_is_clause"
	DropObjectIsClause       = "object_is_clause"
	DropSubjectNotInEvidence = "subject_not_in_evidence"
	DropObjectNotInEvidence  = "object_not_in_evidence"
	DropPredicateRepeatsName = "predicate_repeats_name"
	DropFromExamples         = "from_examples"
	DropEntityIsClause       = "entity_is_clause"
	DropEntityFromExamples   = "entity_from_examples"
)

// MaxNameWords bounds the words of a subject, object or entity name (runs
// of non-space characters that hold a letter or a digit): a longer one is
// a clause. The longest names of the gold sets are titles of works and
// organisations of 13 words (bench/extractq's gold test).
const MaxNameWords = 15

// minSentenceWords is the fewest words of a sentence: a name of fewer
// words that ends with a full stop is a name the model wrote with the full
// stop of its sentence ("bicycles."), not a clause.
const minSentenceWords = 3

// CheckTriplet returns the reason a triplet found in its evidence is no
// fact, or "" when it passes every rule:
//
//   - subject_is_clause, object_is_clause: the name is a sentence or a
//     clause (see IsClause);
//   - subject_not_in_evidence, object_not_in_evidence: the evidence does not
//     contain the name (ignoring case and runs of white space);
//   - subject_is_object: the two are one name after normalisation;
//   - predicate_repeats_name: the predicate is made of the subject's or the
//     object's words (marta_sousa_leads for "Marta Sousa").
func CheckTriplet(subject, predicate, object, evidence string) string {
	switch {
	case IsClause(subject, evidence):
		return DropSubjectIsClause
	case IsClause(object, evidence):
		return DropObjectIsClause
	case !contains(evidence, subject):
		return DropSubjectNotInEvidence
	case !contains(evidence, object):
		return DropObjectNotInEvidence
	case kg.NormalizeName(subject) == kg.NormalizeName(object):
		return DropSelfLoop
	case repeats(predicate, subject) || repeats(predicate, object):
		return DropPredicateRepeatsName
	}
	return ""
}

// CheckEntity returns the reason an entity named in passage is no entity,
// or "": entity_is_clause when its name is a clause (see IsClause), or has
// the words of one of the passage's sentences (one that ends like a
// sentence: see endsSentence).
func CheckEntity(name, passage string) string {
	if IsClause(name, "") {
		return DropEntityIsClause
	}
	for _, s := range Sentences(passage) {
		if endsSentence(s) && IsClause(name, s) {
			return DropEntityIsClause
		}
	}
	return ""
}

// FromExamples reports whether name occurs in the few-shot examples the
// model was shown but not in the passage it was asked about: the model
// copied it from the examples.
func FromExamples(name, passage, examples string) bool {
	return examples != "" && contains(examples, name) && !contains(passage, name)
}

// IsClause reports whether name is a sentence or a clause rather than a
// name: it has more than MaxNameWords words, or ends like a sentence (see
// endsSentence), or has the words of sentence (when sentence is not ""),
// case and punctuation aside.
func IsClause(name, sentence string) bool {
	if nameWords(name) > MaxNameWords || endsSentence(name) {
		return true
	}
	return sentence != "" && slices.Equal(words(name), words(sentence))
}

// endsSentence reports whether s, of at least minSentenceWords words, ends
// with one full stop after a word that is no abbreviation: one of at least
// two characters with no inner full stop, and with no upper-case letter or
// at least five characters. "Marta Sousa leads Velora Cycles." and "founded
// in 2011." end a sentence; "Apple Inc.", "Paul Desmarais Jr.", "Born in the
// U.S.A.", "Friends of Peter G." and "…Famous Last Words..." do not, nor do
// titles that end with a question or exclamation mark ("Forget it!").
func endsSentence(s string) bool {
	s = strings.TrimSpace(s)
	if !strings.HasSuffix(s, ".") || strings.HasSuffix(s, "..") || nameWords(s) < minSentenceWords {
		return false
	}
	f := strings.Fields(s)
	last := []rune(strings.TrimSuffix(f[len(f)-1], "."))
	if len(last) < 2 || slices.Contains(last, '.') {
		return false
	}
	return len(last) >= 5 || !slices.ContainsFunc(last, unicode.IsUpper)
}

// nameWords counts the runs of non-space characters of s that hold a
// letter or a digit: "Son , Ambulance" has two, "W.H.A.D." one.
func nameWords(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		if strings.ContainsFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			n++
		}
	}
	return n
}

// repeats reports whether predicate holds all of name's words, in order,
// as a run of its own words: marta_sousa_leads repeats "Marta Sousa",
// member_of does not repeat "member of parliament".
func repeats(predicate, name string) bool {
	p, n := words(predicate), words(name)
	if len(n) == 0 {
		return false
	}
	for i := 0; i+len(n) <= len(p); i++ {
		if slices.Equal(p[i:i+len(n)], n) {
			return true
		}
	}
	return false
}

// words returns the lower-case runs of letters and digits of s.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// contains reports whether text holds name, ignoring case and runs of
// white space.
func contains(text, name string) bool {
	_, m := locateFolded(text, name)
	return m != MatchNone
}
