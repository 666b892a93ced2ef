# syntax=docker/dockerfile:1
#
# kgforge container image.
#   docker build -t kgforge .
#   docker run --rm kgforge --help
# Requires BuildKit (the default builder in current Docker) for the cache mounts.

############################
# Build stage
############################
FROM golang:1.26-bookworm AS build

# The golang:bookworm image already ships gcc, g++ and libc6-dev, which cgo
# needs to link DuckDB's bundled static library (github.com/duckdb/duckdb-go/v2)
# and to compile SQLite for SQLite sources (github.com/mattn/go-sqlite3).
ENV CGO_ENABLED=1

WORKDIR /src

# Download modules on their own layer so source edits do not invalidate it.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go mod download

COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=1 go build -trimpath -ldflags="-s -w" -o /out/kgforge ./cmd/kgforge

############################
# Runtime stage
############################
# glibc-based, to match the builder: the binary is dynamically linked
# against glibc and libstdc++ because of DuckDB.
FROM debian:bookworm-slim AS runtime

RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates libstdc++6 \
    && rm -rf /var/lib/apt/lists/*

RUN groupadd --gid 10001 kgforge \
    && useradd --uid 10001 --gid 10001 --create-home --home-dir /home/kgforge \
       --shell /usr/sbin/nologin kgforge

WORKDIR /work

COPY --from=build /out/kgforge /usr/local/bin/kgforge
COPY --chown=kgforge:kgforge examples/ ./examples/
COPY --chown=kgforge:kgforge pipelines/ ./pipelines/

# /work/out is the output directory. It is created here, owned by kgforge, so
# a named volume mounted on it starts out writable by the non-root user.
RUN mkdir -p /work/out && chown kgforge:kgforge /work /work/out

USER kgforge:kgforge

ENTRYPOINT ["kgforge"]
CMD ["--help"]
