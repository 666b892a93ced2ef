package stages

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// RatesFile is the file in the cache directory (Runner.CacheDir) that
// keeps, per chat model and LLM server, what the last build that asked the
// model measured: a plan (Forecast) prices the chunks that miss the cache
// at it. It sits beside the LLM cache because both belong to the server
// and model, not to one output directory.
const RatesFile = "rates.json"

// Rate is what one build's extraction measured with one model on one
// server: the chunks it sent to the model and what they took.
type Rate struct {
	Model       string    `json:"model"`
	Host        string    `json:"host"`
	ModelDigest string    `json:"model_digest"`
	BuildID     string    `json:"build_id"`
	Measured    time.Time `json:"measured"`
	// Chunks counts the chunks the build sent to the model (those that
	// missed the cache); the tokens are all its extraction calls'
	// (retries and gleaning turns included).
	Chunks           int64   `json:"chunks"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	ExtractSeconds   float64 `json:"extract_seconds"` // the extract stage's wall time
	Concurrency      int     `json:"concurrency"`     // llm.concurrency of that build
	TokensPerSecond  float64 `json:"completion_tokens_per_second"`
	SecondsPerChunk  float64 `json:"seconds_per_chunk"` // extract wall time per chunk sent, at that concurrency
}

// rateKey is a rate's key in the rates file: the model on the server.
func rateKey(model, host string) string { return model + " @ " + host }

// loadRates reads the rates file; a missing one is empty.
func loadRates(cacheDir string) (map[string]Rate, error) {
	rates := map[string]Rate{}
	path := filepath.Join(cacheDir, RatesFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return rates, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &rates)
	}
	if err != nil {
		return nil, fmt.Errorf("read the measured rates %s: %w (remove it: the next build measures again)", path, err)
	}
	return rates, nil
}

// loadRate returns the rate measured with model on host; nil when none.
func loadRate(cacheDir, model, host string) (*Rate, error) {
	rates, err := loadRates(cacheDir)
	if err != nil {
		return nil, err
	}
	if r, ok := rates[rateKey(model, host)]; ok {
		return &r, nil
	}
	return nil, nil
}

// host is the LLM servers' addresses, as the rates file keys them: one
// server's URL, or the URLs of llm.endpoints joined by commas.
func (b *build) host() string {
	if b.rn.LLM == nil {
		return ""
	}
	var urls []string
	for _, e := range b.rn.LLM.Endpoints() {
		urls = append(urls, e.URL)
	}
	if len(urls) == 0 {
		return b.rn.LLM.Host()
	}
	return strings.Join(urls, ",")
}

// recordRate keeps what this build's extraction measured, when it sent
// the model any chunk: the next plan prices its misses at it.
func (b *build) recordRate() error {
	st := b.rep.Extract
	sent := int64(st.Chunks - st.CacheHits - st.Skipped - st.TooLong)
	calls := b.extracted.Calls - b.usage0.Calls
	if sent <= 0 || calls <= 0 {
		return nil
	}
	eval := (b.extracted.EvalDuration - b.usage0.EvalDuration).Seconds()
	wall := b.rep.Stages["extract"].Duration.Seconds()
	r := Rate{
		Model: b.p.LLM.ChatModel, Host: b.host(), ModelDigest: b.digests.known(b.p.LLM.ChatModel),
		BuildID: b.rep.BuildID, Measured: b.now().UTC(), Chunks: sent,
		PromptTokens:     b.extracted.PromptTokens - b.usage0.PromptTokens,
		CompletionTokens: b.extracted.CompletionTokens - b.usage0.CompletionTokens,
		ExtractSeconds:   wall, Concurrency: b.p.LLM.Concurrency, SecondsPerChunk: wall / float64(sent),
	}
	if eval > 0 {
		r.TokensPerSecond = float64(r.CompletionTokens) / eval
	}
	rates, err := loadRates(b.rn.CacheDir)
	if err != nil {
		rates = map[string]Rate{} // a torn or foreign file is replaced
	}
	rates[rateKey(r.Model, r.Host)] = r
	if err := os.MkdirAll(b.rn.CacheDir, 0o755); err != nil {
		return fmt.Errorf("record the measured rate: %w", err)
	}
	if err := writeFileSync(filepath.Join(b.rn.CacheDir, RatesFile), rates); err != nil {
		return fmt.Errorf("record the measured rate: %w", err)
	}
	return nil
}
