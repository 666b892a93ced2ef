// Package onnxembed embeds texts with a BERT sentence encoder
// (all-MiniLM-L6-v2) through ONNX Runtime, in process: a WordPiece
// tokenizer that reproduces the model's tokenizer.json, and a session over
// an ONNX graph that does the mean pooling and normalisation itself
// (scripts/onnx.sh writes the graph from the model's safetensors and fetches
// libonnxruntime from the onnxruntime wheel). Its vectors agree with
// Ollama's for the same model to a cosine of 0.9999 or more; it is several
// times faster on CPU (docs/benchmarks.md, "Embedding throughput").
//
// It is the only package that imports github.com/yalue/onnxruntime_go.
package onnxembed
