package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// server posts to Ollama's /api/embed, the request llm.Client.Embed sends,
// with the model options a run sets (num_thread), which llm.Client does not
// expose.
type server struct {
	url, model string
	options    map[string]any
}

func (s *server) embed(ctx context.Context, inputs []string) ([][]float32, error) {
	body, err := json.Marshal(map[string]any{"model": s.model, "input": inputs, "truncate": true, "options": s.options, "keep_alive": "30m"})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embed %d inputs: %w", len(inputs), err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("embed %d inputs: %w", len(inputs), err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("embed %d inputs: %s: %s", len(inputs), resp.Status, raw)
	}
	var out struct {
		Embeddings [][]float32 `json:"embeddings"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("embed %d inputs: %w", len(inputs), err)
	}
	if len(out.Embeddings) != len(inputs) {
		return nil, fmt.Errorf("embed %d inputs: got %d vectors", len(inputs), len(out.Embeddings))
	}
	return out.Embeddings, nil
}
