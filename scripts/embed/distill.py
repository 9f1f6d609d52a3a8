"""Distil a teacher (teacher.py: all-MiniLM-L6-v2 or bge-small-en-v1.5) into a static model2vec model.

    python scripts/embed/distill.py OUT_DIR [--teacher minilm|bge] [--pca 256]

Writes OUT_DIR/model (model2vec's safetensors + tokenizer.json). Deterministic: CPU, fixed seeds.
"""

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np
import torch

torch.manual_seed(0)
np.random.seed(0)
torch.set_num_threads(int(os.environ.get("EMBED_THREADS", "2")))

from model2vec.distill import distill
from teacher import TEACHERS, sha256, teacher_dir


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--pca", type=int, default=256)
    ap.add_argument("--teacher", default="minilm", choices=sorted(TEACHERS))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    teacher = teacher_dir(args.teacher)
    hashes = {p.name: sha256(p) for p in sorted(teacher.iterdir()) if p.is_file()}
    model = distill(model_name=str(teacher), pca_dims=args.pca, device="cpu", quantize_to="float32")
    model.save_pretrained(str(out / "model"))
    (out / "teacher.json").write_text(json.dumps({"dir": str(teacher), "sha256": hashes}, indent=1))
    print("distilled", model.embedding.shape, file=sys.stderr)


if __name__ == "__main__":
    main()
