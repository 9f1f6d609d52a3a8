"""Refine the static model on public documentation with tokenlearn: the teacher's mean token
embedding of each passage is the target the static vectors are fitted to.

    python scripts/embed/refine.py CORPUS.txt OUT_DIR [--teacher minilm|bge] [--passages 120000] [--vocab 0]
                                   [--extra LINES.txt --extra-passages N]

CORPUS.txt is scripts/vectors/corpus.ts's output (one paragraph a line). Passages are 8 to 48
words cut from its lines, sampled with a fixed seed. --extra adds N whole lines of another file (glosses.py's definitions),
sampled with the same seed, after those passages. OUT_DIR/features holds the teacher's
targets (reused on a rerun), OUT_DIR/model the refined model.
"""

import argparse
import os
import random
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
import numpy as np
import torch

torch.manual_seed(0)
np.random.seed(0)
random.seed(0)
torch.set_num_threads(int(os.environ.get("EMBED_THREADS", "2")))

from model2vec.distill import distill
from teacher import TEACHERS, teacher_dir
from sentence_transformers import SentenceTransformer
from tokenlearn.train import train_model
from tokenlearn.utils import create_vocab


def passages(corpus: Path, count: int) -> list[str]:
    rng = random.Random(7)
    lines = [l.split() for l in corpus.read_text(encoding="utf-8").splitlines()]
    lines = [l for l in lines if len(l) >= 8]
    out = []
    for words in lines:
        i = 0
        while i + 8 <= len(words):
            n = rng.randint(8, 48)
            out.append(" ".join(words[i : i + n]))
            i += n
    rng.shuffle(out)
    seen = set()
    uniq = []
    for p in out:
        if p not in seen:
            seen.add(p)
            uniq.append(p)
        if len(uniq) >= count:
            break
    return uniq


def extra_lines(path: Path, count: int) -> list[str]:
    lines = [l for l in path.read_text(encoding="utf-8").splitlines() if l.strip()]
    random.Random(7).shuffle(lines)
    return lines[:count] if count else lines


def featurize(teacher_path: str, texts: list[str], out: Path) -> np.ndarray:
    """The teacher's targets, reusing those of an earlier run for the passages it shares as a prefix
    (a larger --passages keeps the smaller run's passages first)."""
    path = out / "targets.npy"
    done = out / "targets-texts.txt"
    vecs = []
    if path.exists() and done.exists():
        old = done.read_text(encoding="utf-8").split("\n")
        same = next((i for i, (a, b) in enumerate(zip(old, texts)) if a != b), min(len(old), len(texts)))
        vecs = list(np.load(path)[:same])
        if same == len(texts):
            return np.stack(vecs).astype(np.float32)
    teacher = SentenceTransformer(teacher_path, device="cpu")
    started = time.time()
    for i in range(len(vecs), len(texts), 256):
        batch = teacher.encode(texts[i : i + 256], output_value="token_embeddings", batch_size=64)
        vecs.extend(e[1:-1].float().mean(axis=0).cpu().numpy() for e in batch)
        if i % 10240 == 0:
            print(f"  {i}/{len(texts)} passages, {time.time() - started:.0f} s", file=sys.stderr)
    v = np.stack(vecs).astype(np.float32)
    np.save(path, v)
    done.write_text("\n".join(texts), encoding="utf-8")
    return v


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--passages", type=int, default=120_000)
    ap.add_argument("--vocab", type=int, default=0, help="whole words added to the vocabulary (0: none)")
    ap.add_argument("--pca", type=int, default=256)
    ap.add_argument("--extra", default=None, help="a file of whole passages, one a line")
    ap.add_argument("--extra-passages", type=int, default=0, help="how many of them (0: all)")
    ap.add_argument("--teacher", default="minilm", choices=sorted(TEACHERS))
    args = ap.parse_args()
    teacher = str(teacher_dir(args.teacher))
    out = Path(args.out)
    (out / "features").mkdir(parents=True, exist_ok=True)
    texts = passages(Path(args.corpus), args.passages)
    if args.extra:
        texts += extra_lines(Path(args.extra), args.extra_passages)
    (out / "features" / "texts.txt").write_text("\n".join(texts), encoding="utf-8")
    print(f"{len(texts)} passages", file=sys.stderr)
    targets = featurize(teacher, texts, out / "features")
    if args.extra:
        # tokenlearn validates on the last tenth: mix the two sources so both are trained and checked.
        order = np.random.default_rng(7).permutation(len(texts))
        texts, targets = [texts[i] for i in order], targets[order]
    vocab = create_vocab(texts, vocab_size=args.vocab) if args.vocab else None
    model = distill(model_name=teacher, vocabulary=vocab, pca_dims=args.pca, device="cpu", quantize_to="float32")
    model = train_model(model, texts, targets, device="cpu", pca_dims=args.pca)
    model.save_pretrained(str(out / "model"))
    print("refined", model.embedding.shape, file=sys.stderr)


if __name__ == "__main__":
    main()
