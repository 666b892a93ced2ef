package extract

import (
	"encoding/json"
	"fmt"
)

// Reply is the model's reply for one chunk.
type Reply struct {
	Triplets []RawTriplet `json:"triplets"`
	Entities []RawEntity  `json:"entities"`
	// Malformed counts the lines of a line-format reply that were not
	// facts (completion mode); never sent to a model.
	Malformed int `json:"malformed_lines,omitempty"`
}

func (r Reply) empty() bool { return len(r.Triplets) == 0 && len(r.Entities) == 0 }

// RawTriplet is one triplet as the model proposed it, before grounding.
type RawTriplet struct {
	Subject     string `json:"subject"`
	SubjectType string `json:"subject_type"`
	Predicate   string `json:"predicate"`
	Object      string `json:"object"`
	ObjectType  string `json:"object_type"`
	Evidence    string `json:"evidence"`
	// Prob is the model's own probability of the line it wrote the
	// triplet on: the least probability of a token of the line (the line
	// format, when the server gives log probabilities); 0 when unknown.
	// ProbMean is the geometric mean of the line's token probabilities.
	Prob     float64 `json:"prob,omitempty"`
	ProbMean float64 `json:"prob_mean,omitempty"`
}

// RawEntity is one entity as the model proposed it, before grounding.
type RawEntity struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
}

// ParseReply decodes the model's reply. A reply cut inside its last array
// (the output-token bound was reached) keeps its complete items.
func ParseReply(content string) (Reply, error) {
	var r Reply
	err := json.Unmarshal([]byte(content), &r)
	if err == nil {
		return r, nil
	}
	if fixed, ok := repairTruncated(content); ok {
		if err2 := json.Unmarshal([]byte(fixed), &r); err2 == nil {
			return r, nil
		}
	}
	return Reply{}, fmt.Errorf("parse reply: %w", err)
}

// repairTruncated cuts s after the last complete object inside a top-level
// array ("triplets" or "entities") and closes the array and the object. Only
// that one shape of damage is repaired; anything else is left to a retry.
func repairTruncated(s string) (string, bool) {
	depth, inStr, esc := 0, false, false
	last := -1
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case ch == '\\':
				esc = true
			case ch == '"':
				inStr = false
			}
			continue
		}
		switch ch {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if ch == '}' && depth == 2 {
				last = i
			}
		}
	}
	if last < 0 || depth <= 0 {
		return "", false
	}
	return s[:last+1] + "]}", true
}
