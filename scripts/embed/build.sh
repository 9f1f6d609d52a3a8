#!/usr/bin/env bash
# Rebuild the sentence model the binary embeds (src/retrieval/embed/model.bin, model.json) and the fixtures
# that pin the TypeScript tokenizer and embedding (test/fixtures/embed/). Python is needed here
# only. Deterministic: fixed seeds, CPU, EMBED_THREADS threads (default 2).
#
#   scripts/embed/build.sh [DATA_DIR]      (default ../embed-data beside the checkout; never in git)
#
# Steps: a virtual environment from requirements.txt; the documentation corpus of
# scripts/vectors/ (the repositories already fetched under $VECTORS_MIRROR); model2vec's
# distillation of all-MiniLM-L6-v2; tokenlearn's refinement on 40,000 passages of that corpus;
# the table and fixtures. About 20 minutes on this 2-core machine (the teacher's pass over the
# passages is most of it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
data=${1:-$root/../embed-data}
mkdir -p "$data"
venv=$data/venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q -r "$here/requirements.txt"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 CUDA_VISIBLE_DEVICES= EMBED_DATA=$data
cd "$root"
bun scripts/vectors/corpus.ts --data "$data/docs" --fetched-only --sources-out "$data/docs/SOURCES.md"
nice -n 10 "$venv/bin/python" "$here/distill.py" "$data/base" --teacher minilm
nice -n 10 "$venv/bin/python" "$here/refine.py" "$data/docs/corpus.txt" "$data/refined" --teacher minilm --passages 40000
"$venv/bin/python" "$here/export.py" "$data/refined/model"
"$venv/bin/python" "$here/evaluate.py" "$data/refined/model"
