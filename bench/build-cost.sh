#!/usr/bin/env bash
# Build cost of the benchmark's framework peers, each in a fresh target
# directory: clean release build time, rebuild time after touching the file
# with the tools, stripped binary size and dependency count. Ours and rmcp's
# peer are each built twice: with their default features (stdio and
# Streamable HTTP), and as stdio-only servers (`--no-default-features`), so
# the rows compare like with like.
#   bash bench/build-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cargo fetch --quiet
printf '| peer | clean release build | rebuild after touch | stripped binary | dependencies |\n|---|---|---|---|---|\n'
for peer in bench-ours:bench/ours/src/main.rs bench-ours:bench/ours/src/main.rs:--no-default-features \
    bench-rmcp-peer:bench/rmcp-peer/src/main.rs bench-rmcp-peer:bench/rmcp-peer/src/main.rs:--no-default-features \
    bench-flymcprust-peer:bench/flymcprust-peer/src/main.rs; do
    IFS=: read -r package source flags <<<"$peer"
    target="$scratch/$package$flags"
    start=$(date +%s.%N)
    CARGO_TARGET_DIR="$target" cargo build --quiet --release -p "$package" $flags
    clean=$(echo "$(date +%s.%N) - $start" | bc)
    touch "$source"
    start=$(date +%s.%N)
    CARGO_TARGET_DIR="$target" cargo build --quiet --release -p "$package" $flags
    rebuild=$(echo "$(date +%s.%N) - $start" | bc)
    strip -o "$target/stripped" "$target/release/$package"
    size=$(stat -c %s "$target/stripped")
    deps=$(cargo tree --quiet -p "$package" $flags -e normal --prefix none | sed 's/ (\*)//' | sort -u | wc -l)
    printf '| %s | %.1f s | %.1f s | %.2f MiB | %s |\n' "$package${flags:+ $flags}" "$clean" "$rebuild" "$(echo "$size / 1048576" | bc -l)" "$((deps - 1))"
done
