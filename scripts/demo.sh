#!/usr/bin/env bash
# The main job: build ozblas and run the ozblas-bench demonstration (extra arguments go to ozblas-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target ozblas-bench >/dev/null
exec build/bench/ozblas-bench "$@"
