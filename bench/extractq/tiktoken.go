package main

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/tiktoken-go/tokenizer"
)

// Python's tiktoken, which both peers count tokens with, downloads its BPE
// rank files on first use from a host this machine cannot reach. The bench
// writes them into the drivers' TIKTOKEN_CACHE_DIR from the vocabularies
// embedded in github.com/tiktoken-go/tokenizer (kgforge's own tokenizer),
// each checked against the SHA-256 tiktoken expects of its download, so
// tiktoken takes it as its own.

// tiktokenFiles are tiktoken's download address and expected SHA-256 for
// each encoding (tiktoken_ext/openai_public.py).
var tiktokenFiles = []struct {
	enc       tokenizer.Encoding
	url, hash string
}{
	{tokenizer.O200kBase, "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"},
	{tokenizer.Cl100kBase, "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"},
}

// writeTiktokenFiles writes each encoding's file into dir under the name
// tiktoken looks for (the SHA-1 of its address), unless it is there.
func writeTiktokenFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("tiktoken files: %w", err)
	}
	for _, f := range tiktokenFiles {
		name := sha1.Sum([]byte(f.url))
		path := filepath.Join(dir, hex.EncodeToString(name[:]))
		if _, err := os.Stat(path); err == nil {
			continue
		}
		b, err := tiktokenRanks(f.enc, f.hash)
		if err != nil {
			return err
		}
		if err := os.WriteFile(path+".tmp", b, 0o644); err != nil {
			return fmt.Errorf("tiktoken files: %w", err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			return fmt.Errorf("tiktoken files: %w", err)
		}
	}
	return nil
}

// tiktokenRanks renders an encoding in tiktoken's file format, one
// "base64(token) rank" line per rank in rank order, and checks its hash.
func tiktokenRanks(enc tokenizer.Encoding, want string) ([]byte, error) {
	codec, err := tokenizer.Get(enc)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", enc, err)
	}
	var b bytes.Buffer
	for rank := uint(0); ; rank++ {
		tok, err := codec.Decode([]uint{rank})
		if err != nil {
			break // past the last ordinary rank
		}
		b.WriteString(base64.StdEncoding.EncodeToString([]byte(tok)))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatUint(uint64(rank), 10))
		b.WriteByte('\n')
	}
	sum := sha256.Sum256(b.Bytes())
	if got := hex.EncodeToString(sum[:]); got != want {
		return nil, fmt.Errorf("encoding %s: rendered ranks have SHA-256 %s, tiktoken expects %s", enc, got, want)
	}
	return b.Bytes(), nil
}
