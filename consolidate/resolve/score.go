package resolve

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Features are the inputs of the calibrated score, in the order of
// Model.Coefficients. Each is a number in [0, 1]:
//
//   - cosine: the cosine of the name embeddings (0 without a vector);
//   - key: 1 when the suffix or plural key agrees;
//   - acronym: 1 when one name is the initials of the other;
//   - containment: the IDF weight of the shared name words over that of the
//     lighter name;
//   - idf_overlap: the IDF-weighted Jaccard of the name words;
//   - trigram: the Jaccard of the character trigrams of the compact names;
//   - description: the IDF-weighted Jaccard of the descriptions' words,
//     description_known 1 when both have one;
//   - neighbours: the IDF-weighted Jaccard of the names each is related
//     to in the graph, neighbours_known 1 when both have neighbours;
//   - description_numbers: 1 when both descriptions hold numbers and they
//     differ as numbersDiffer compares names (another year, another model);
//   - length: the number of words of the shorter name over 10, at most 1,
//     and cosine×length, containment×length: a title of ten words that
//     shares most of them says less than a company name of two;
//   - typo: 1 when the names differ in one word each and those two words
//     by a typo (typoDiffer: one edit in five letters or fewer).
var Features = []Signal{
	SignalCosine, "key", SignalAcronym, SignalContainment, SignalIDFOverlap, SignalTrigram,
	SignalDescription, "description_known", SignalNeighbours, "neighbours_known",
	SignalDescriptionNumbers, "length", "cosine_x_length", "containment_x_length", SignalTypo,
}

// Model is a logistic regression over Features, and its bands: a pair
// with a score (the probability that it is one entity) of at least Merge
// merges, one of at least Uncertain is shown for review, one under it
// stays apart.
type Model struct {
	Features     []Signal  `json:"features"`
	Intercept    float64   `json:"intercept"`
	Coefficients []float64 `json:"coefficients"`
	Merge        float64   `json:"merge"`
	Uncertain    float64   `json:"uncertain"`
	// Fit says how the model was fitted: the command, the data and its
	// digest; it is not read by Score.
	Fit json.RawMessage `json:"fit,omitempty"`
}

//go:embed model.json
var defaultModelJSON []byte

// DefaultModel returns the model fitted on the development sets
// (model.json, written by `go run ./bench/erq -fit`).
func DefaultModel() Model {
	m, err := ParseModel(defaultModelJSON)
	if err != nil {
		panic("resolve: model.json: " + err.Error())
	}
	return m
}

// ParseModel reads a model and checks it.
func ParseModel(b []byte) (Model, error) {
	var m Model
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("resolve model: %w", err)
	}
	return m, m.Validate()
}

// Validate checks that a model has the features of this version, in order,
// with finite coefficients, and bands 0 < Uncertain ≤ Merge < 1.
func (m Model) Validate() error {
	var errs []error
	if !slices.Equal(m.Features, Features) {
		errs = append(errs, fmt.Errorf("resolve model: features %v, want %v", m.Features, Features))
	}
	if len(m.Coefficients) != len(m.Features) {
		errs = append(errs, fmt.Errorf("resolve model: %d coefficients for %d features", len(m.Coefficients), len(m.Features)))
	}
	for _, c := range append([]float64{m.Intercept}, m.Coefficients...) {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			errs = append(errs, errors.New("resolve model: a coefficient is not finite"))
			break
		}
	}
	if !(m.Uncertain > 0 && m.Uncertain <= m.Merge && m.Merge < 1) {
		errs = append(errs, fmt.Errorf("resolve model: bands uncertain %v, merge %v: want 0 < uncertain ≤ merge < 1", m.Uncertain, m.Merge))
	}
	return errors.Join(errs...)
}

// Score returns the probability the model gives to a pair with these
// feature values (in the order of Features).
func (m Model) Score(x []float64) float64 {
	z := m.Intercept
	for k, c := range m.Coefficients {
		z += c * x[k]
	}
	return 1 / (1 + math.Exp(-z))
}
