#!/usr/bin/env bash
# Build cost of the benchmark's two framework peers, each in a fresh target
# directory: clean release build time, rebuild time after touching the file
# with the tools, stripped binary size and dependency count.
#   bash bench/build-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cargo fetch --quiet
printf '| peer | clean release build | rebuild after touch | stripped binary | dependencies |\n|---|---|---|---|---|\n'
for peer in bench-ours:bench/ours/src/main.rs bench-rmcp-peer:bench/rmcp-peer/src/main.rs; do
    package=${peer%%:*}
    source=${peer#*:}
    target="$scratch/$package"
    start=$(date +%s.%N)
    CARGO_TARGET_DIR="$target" cargo build --quiet --release -p "$package"
    clean=$(echo "$(date +%s.%N) - $start" | bc)
    touch "$source"
    start=$(date +%s.%N)
    CARGO_TARGET_DIR="$target" cargo build --quiet --release -p "$package"
    rebuild=$(echo "$(date +%s.%N) - $start" | bc)
    strip -o "$target/stripped" "$target/release/$package"
    size=$(stat -c %s "$target/stripped")
    deps=$(cargo tree --quiet -p "$package" -e normal --prefix none | sed 's/ (\*)//' | sort -u | wc -l)
    printf '| %s | %.1f s | %.1f s | %.2f MiB | %s |\n' "$package" "$clean" "$rebuild" "$(echo "$size / 1048576" | bc -l)" "$((deps - 1))"
done
