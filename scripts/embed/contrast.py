"""Refine a static model contrastively on pairs.py's (query, passage) pairs: each query's vector
(the mean of its tokens' rows, as the product computes it) is pulled towards its passage's and away
from the batch's other passages (in-batch negatives, both directions, cosine x --scale), with a
penalty on moving rows away from where they started (--anchor x mean squared distance).

    python scripts/embed/contrast.py MODEL_DIR PAIRS.jsonl OUT_DIR [--epochs 3] [--lr 2e-3] [--batch 256]

OUT_DIR is MODEL_DIR with new rows (the tokenizer and configuration copied).
"""

import argparse
import json
import os
import random
import shutil
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
import numpy as np
import torch
import torch.nn.functional as F
from model2vec import StaticModel
from safetensors.numpy import save_file


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("pairs")
    ap.add_argument("out")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--scale", type=float, default=20.0)
    ap.add_argument("--anchor", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    torch.set_num_threads(int(os.environ.get("EMBED_THREADS", "2")))
    model = StaticModel.from_pretrained(args.model)
    start = torch.tensor(np.asarray(model.embedding), dtype=torch.float32)
    rows = [json.loads(line) for line in open(args.pairs, encoding="utf-8") if line.strip()]
    queries = [t[:128] for t in model.tokenize([r["q"] for r in rows])]
    passages = [t[:128] for t in model.tokenize([r["p"] for r in rows])]
    order = [i for i in range(len(rows)) if queries[i] and passages[i]]
    print(f"{len(order)} pairs", file=sys.stderr)
    table = torch.nn.Parameter(start.clone())
    opt = torch.optim.Adam([table], lr=args.lr)

    def encode(seqs: list[list[int]]) -> torch.Tensor:
        ids = torch.tensor([t for s in seqs for t in s])
        offsets = torch.tensor([0, *np.cumsum([len(s) for s in seqs])[:-1]])
        return F.normalize(F.embedding_bag(ids, table, offsets, mode="mean"), dim=-1)

    started, step = time.time(), 0
    for epoch in range(args.epochs):
        rng.shuffle(order)
        for b in range(0, len(order) - args.batch + 1, args.batch):
            batch = order[b : b + args.batch]
            sims = encode([queries[i] for i in batch]) @ encode([passages[i] for i in batch]).T * args.scale
            labels = torch.arange(len(batch))
            loss = (F.cross_entropy(sims, labels) + F.cross_entropy(sims.T, labels)) / 2
            drift = args.anchor * ((table - start) ** 2).sum(1).mean()
            opt.zero_grad()
            (loss + drift).backward()
            opt.step()
            step += 1
            if step % 100 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.3f} drift {drift.item():.4f} {time.time() - started:.0f} s", file=sys.stderr)
    out = Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(args.model, out)
    save_file({"embeddings": table.detach().numpy().astype(np.float32)}, str(out / "model.safetensors"))
    print(f"saved {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
