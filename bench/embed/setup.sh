#!/usr/bin/env bash
# The venv of bench/embed's Python side: onnxruntime (the same 1.24.1 as
# onnxembed's library), tokenizers (the reference tokenizer), and, for
# sentence-transformers as a reference, SENTENCE_TRANSFORMERS=1 (torch, ~3 GB).
set -euo pipefail
E=${XDG_CACHE_HOME:-$HOME/.cache}/kgforge/embedbench
[[ -x $E/venv/bin/python ]] || python3 -m venv "$E/venv"
"$E/venv/bin/pip" install -q --disable-pip-version-check onnxruntime==1.24.1 tokenizers==0.23.3 numpy==2.4.6
if [[ ${SENTENCE_TRANSFORMERS:-} == 1 ]]; then "$E/venv/bin/pip" install -q --disable-pip-version-check sentence-transformers; fi
"$(dirname "$0")/../../scripts/onnx.sh" up
ln -sf "${XDG_CACHE_HOME:-$HOME/.cache}/kgforge/models/all-MiniLM-L6-v2-onnx/model.onnx" "$E/minilm.onnx"
