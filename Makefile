# kgforge — the two commands a newcomer needs are `make demo` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
GO ?= go
BIN := bin/kgforge
CACHE := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/kgforge
# The services' addresses; the scripts use a server that already answers there.
export OLLAMA_HOST ?= 127.0.0.1:11434
export NEO4J_BOLT ?= 127.0.0.1:7687
export NEO4J_URI ?= bolt://$(NEO4J_BOLT)
# PostgreSQL for the tests of the postgres source (scripts/postgres.sh).
export KGFORGE_PG_PORT ?= 55432
export KGFORGE_TEST_PG_DSN ?= postgres://postgres@127.0.0.1:$(KGFORGE_PG_PORT)/kgforge_test?sslmode=disable
QUESTION ?= Which supplier supplies the battery pack?
# The example's chat model, kgforge-extract, only extracts; the agent is
# driven by kgforge's first action model, kgforge-agent, on a budget that
# fits it (docs/models.md says how weak it still is).
ASK_FLAGS ?= --model kgforge-agent --budget 4
# The facts the demo shows: the dozen extracted triplets kgforge is surest
# of (confidence: grounding times the model's own probability of the fact,
# docs/extraction.md), with evidence.
FACTS_SQL ?= SELECT subject, predicate, object, round(confidence, 2) AS confidence, left(evidence, 70) AS evidence FROM triplets ORDER BY confidence DESC, chunk_id, evidence_start LIMIT 12

.PHONY: all build services test-services stop demo test test-unit fuzz lint tidy clean

all: build

build:
	$(GO) build -trimpath -o $(BIN) ./cmd/kgforge

## services: build and start Ollama (with gemma3:270m, kgforge-extract merged from the committed adapter, and the embedding model) and Neo4j, fetch ONNX Runtime and the embedding graph; idempotent
services:
	scripts/ollama.sh up
	scripts/onnx.sh up
	scripts/neo4j.sh build
	scripts/neo4j.sh start

## test-services: the services plus PostgreSQL, a Temporal dev server and Chromium (for the review page's browser tests), which only the tests use
test-services: services
	scripts/postgres.sh up
	scripts/temporal.sh up
	scripts/chromium.sh up

## stop: stop the services the scripts started
stop:
	-scripts/ollama.sh stop
	-scripts/neo4j.sh stop
	-scripts/postgres.sh stop
	-scripts/temporal.sh stop

## demo: set everything up, build the example bundle, load Neo4j, ask a question
demo: build services
	@echo "== kgforge build --pipeline pipelines/example.yaml"
	$(BIN) build --pipeline pipelines/example.yaml || [ $$? -eq 3 ]
	@echo
	@echo "== bundle: out/bikeco/latest -> $$(readlink out/bikeco/latest)"
	$(BIN) bundle verify out/bikeco
	@echo
	@echo "== the facts kgforge-extract is surest of, each with its confidence and the sentence it came from"
	$(BIN) query --bundle out/bikeco "$(FACTS_SQL)"
	@echo
	@echo "== kgforge ask --bundle out/bikeco $(ASK_FLAGS) \"$(QUESTION)\""
	@echo "   (kgforge-agent is kgforge's 270M action model and still weak: on Spider databases it never trained on it"
	@echo "    was right on 16 of 33 questions (its repairs were written from those databases' questions), on 53 of 100"
	@echo "    TAT-QA questions, on 14 or 15 of this example's 23 (9 of them by repairs written knowing those questions) and on"
	@echo "    73 of 102 questions of its kind written before any repair read them (docs/benchmarks.md): check its answer"
	@echo "    against the rows it shows;"
	@echo "    --model takes any Ollama model: docs/agent.md)"
	$(BIN) ask --bundle out/bikeco $(ASK_FLAGS) "$(QUESTION)" || [ $$? -eq 6 ]  # 6: no answer (docs/agent.md)

## test: unit, fuzz-seed and integration tests against the real Ollama and Neo4j, and the training recipe's data tests (no torch)
test: test-services
	scripts/training-tests.sh
	KGFORGE_INTEGRATION=1 $(GO) test -race -timeout 40m -count=1 ./...

## test-unit: tests that need no services (integration tests skip)
test-unit:
	$(GO) test -race -count=1 ./...

## fuzz: a short run of every fuzz target of every package (FUZZTIME: a duration such as 30s, or a count such as 20000x)
fuzz:
	@for pkg in $$($(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' "$$pkg" | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$t"; \
	    $(GO) test "$$pkg" -run '^$$' -fuzz "^$$t$$" -fuzztime $${FUZZTIME:-20s}; \
	  done; \
	done

## lint: golangci-lint v2 with .golangci.yml (built from the Go module proxy on first use)
GOLANGCI_LINT := github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0
lint:
	$(GO) run $(GOLANGCI_LINT) run ./...

tidy:
	$(GO) mod tidy

clean:
	rm -rf bin out
