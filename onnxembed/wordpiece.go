package onnxembed

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Tokenizer is the uncased BERT tokenizer of a tokenizer.json with a
// BertNormalizer (clean text, CJK spacing, accents stripped, lower case), a
// BertPreTokenizer (white space and punctuation) and a WordPiece model, with
// [CLS] ... [SEP] around each text — the pipeline of all-MiniLM-L6-v2.
type Tokenizer struct {
	vocab              map[string]int64
	cls, sep, unk      int64
	maxLen, maxWordLen int
}

// LoadTokenizer reads the vocabulary of a tokenizer.json and checks that the
// file describes the pipeline Tokenizer implements. maxLen caps the tokens
// of a text, [CLS] and [SEP] included (the model's max_seq_length).
func LoadTokenizer(path string, maxLen int) (*Tokenizer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	var tj struct {
		Normalizer struct {
			Type      string `json:"type"`
			Lowercase bool   `json:"lowercase"`
		} `json:"normalizer"`
		PreTokenizer struct {
			Type string `json:"type"`
		} `json:"pre_tokenizer"`
		Model struct {
			Type          string           `json:"type"`
			UnkToken      string           `json:"unk_token"`
			Prefix        string           `json:"continuing_subword_prefix"`
			MaxInputChars int              `json:"max_input_chars_per_word"`
			Vocab         map[string]int64 `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(raw, &tj); err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	m := tj.Model
	if tj.Normalizer.Type != "BertNormalizer" || !tj.Normalizer.Lowercase || tj.PreTokenizer.Type != "BertPreTokenizer" ||
		m.Type != "WordPiece" || m.Prefix != "##" {
		return nil, fmt.Errorf("load tokenizer %s: not an uncased BERT WordPiece tokenizer (normalizer %s, pre-tokenizer %s, model %s)",
			path, tj.Normalizer.Type, tj.PreTokenizer.Type, m.Type)
	}
	t := &Tokenizer{vocab: m.Vocab, maxLen: maxLen, maxWordLen: m.MaxInputChars}
	for tok, dst := range map[string]*int64{"[CLS]": &t.cls, "[SEP]": &t.sep, m.UnkToken: &t.unk} {
		id, ok := m.Vocab[tok]
		if !ok {
			return nil, fmt.Errorf("load tokenizer %s: no %s in the vocabulary", path, tok)
		}
		*dst = id
	}
	if t.maxWordLen <= 0 {
		t.maxWordLen = 100
	}
	return t, nil
}

// Encode returns the token ids of text, [CLS] first and [SEP] last, at most
// maxLen of them.
func (t *Tokenizer) Encode(text string) []int64 {
	ids := []int64{t.cls}
	for _, w := range preTokenize(normalize(text)) {
		ids = t.wordPiece(ids, w)
		if len(ids) >= t.maxLen-1 {
			ids = ids[:t.maxLen-1]
			break
		}
	}
	return append(ids, t.sep)
}

// wordPiece appends the pieces of one word: the longest vocabulary prefix,
// then the longest "##" continuation, and so on; a word that cannot be cut
// so, or is too long, is [UNK].
func (t *Tokenizer) wordPiece(ids []int64, word string) []int64 {
	if utf8.RuneCountInString(word) > t.maxWordLen {
		return append(ids, t.unk)
	}
	n := len(ids)
	for start := 0; start < len(word); {
		end, id := len(word), int64(-1)
		for ; end > start; end-- {
			if end < len(word) && !utf8.RuneStart(word[end]) {
				continue
			}
			piece := word[start:end]
			if start > 0 {
				piece = "##" + piece
			}
			if v, ok := t.vocab[piece]; ok {
				id = v
				break
			}
		}
		if id < 0 {
			return append(ids[:n], t.unk)
		}
		ids = append(ids, id)
		start = end
	}
	return ids
}

// normalize is BertNormalizer with lowercase (and so strip_accents): drop
// NUL, U+FFFD and control characters, white space to a space, spaces around
// CJK ideographs, NFD without combining marks, lower case.
func normalize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == 0 || r == utf8.RuneError || isControl(r):
		case isWhitespace(r):
			b.WriteByte(' ')
		case isCJK(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	var out strings.Builder
	for _, r := range norm.NFD.String(b.String()) {
		if !unicode.Is(unicode.Mn, r) {
			out.WriteString(strings.ToLower(string(r)))
		}
	}
	return out.String()
}

// preTokenize splits on white space and cuts every punctuation character
// out as a word of its own.
func preTokenize(s string) []string {
	var words []string
	for _, f := range strings.FieldsFunc(s, isWhitespace) {
		start := 0
		for i, r := range f {
			if isPunct(r) {
				if i > start {
					words = append(words, f[start:i])
				}
				words = append(words, string(r))
				start = i + utf8.RuneLen(r)
			}
		}
		if start < len(f) {
			words = append(words, f[start:])
		}
	}
	return words
}

func isWhitespace(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || unicode.IsSpace(r)
}

func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.Is(unicode.C, r) || r >= 0x80 && !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

func isPunct(r rune) bool {
	return r < 0x80 && unicode.IsPrint(r) && !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ' ' || unicode.IsPunct(r)
}

func isCJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF || r >= 0x20000 && r <= 0x2A6DF ||
		r >= 0x2A700 && r <= 0x2B73F || r >= 0x2B740 && r <= 0x2B81F || r >= 0x2B920 && r <= 0x2CEAF ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0x2F800 && r <= 0x2FA1F
}
