#!/usr/bin/env bash
# Creates the virtual environment the peer drivers run in, outside the work
# tree, and installs LightRAG and Microsoft GraphRAG from PyPI at the pinned
# versions below. Bench-only: kgforge itself needs no Python.
#
#   bench/extractq/peers/setup.sh            # ~/.cache/kgforge/bench/peers-venv
#   PEERS_VENV=/some/dir bench/extractq/peers/setup.sh
set -euo pipefail

venv=${PEERS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/kgforge/bench/peers-venv}
python=${PYTHON:-python3}
if [ -x /root/.pyenv/shims/python3 ] && [ -z "${PYTHON:-}" ]; then
	python=/root/.pyenv/shims/python3
fi

# Versions measured in docs/benchmarks.md (section "Against the peers").
LIGHTRAG_VERSION=${LIGHTRAG_VERSION:-1.5.7}
GRAPHRAG_VERSION=${GRAPHRAG_VERSION:-3.3.0}

# One environment per peer: their dependency pins (numpy, tiktoken, openai,
# pydantic) need not agree.
install() { # name, packages...
	local dir="$venv/$1"
	shift
	if [ ! -x "$dir/bin/python" ]; then
		"$python" -m venv "$dir"
	fi
	"$dir/bin/python" -m pip install --quiet --upgrade pip
	"$dir/bin/python" -m pip install --quiet "$@"
	"$dir/bin/python" -m pip freeze >"$dir/freeze.txt"
}

# tiktoken (both peers count tokens with it) downloads its BPE files on first
# use from a host this machine cannot reach; `go run ./bench/extractq -peers`
# writes them into $venv/tiktoken from kgforge's own Go tokenizer before it
# starts a driver.

install lightrag "lightrag-hku==$LIGHTRAG_VERSION" ollama
install graphrag "graphrag==$GRAPHRAG_VERSION"
grep -iE '^(lightrag-hku|ollama)==' "$venv/lightrag/freeze.txt"
grep -iE '^(graphrag|litellm|openai)==' "$venv/graphrag/freeze.txt" || true
echo "peers venvs: $venv/lightrag $venv/graphrag"
