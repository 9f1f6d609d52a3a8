"""One static model from two refined ones with the same vocabulary: each token's rows side by side,
each model scaled so that a passage's vector has the same typical length in both (equal say), then
PCA back to 256 dimensions. A sentence's vector is a mean of rows, so this is (up to the PCA) the
two models' vectors concatenated: the cosine of the pair, each model's errors partly cancelling.

    python scripts/embed/combine.py MODEL_A MODEL_B PASSAGES.txt OUT_DIR [--pca 256]

PASSAGES.txt: refine.py's passages (features/texts.txt); the first 5,000 measure the lengths.
"""

import argparse
import sys

import numpy as np
from model2vec import StaticModel
from sklearn.decomposition import PCA


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("passages")
    ap.add_argument("out")
    ap.add_argument("--pca", type=int, default=256)
    args = ap.parse_args()
    a = StaticModel.from_pretrained(args.a)
    b = StaticModel.from_pretrained(args.b)
    if a.tokenizer.get_vocab() != b.tokenizer.get_vocab():
        raise SystemExit("the two models' vocabularies differ")
    texts = open(args.passages, encoding="utf-8").read().split("\n")[:5000]
    length = lambda m: float(np.median(np.linalg.norm(m.encode(texts), axis=1)))
    rows = np.concatenate(
        [np.asarray(a.embedding, np.float64) / length(a), np.asarray(b.embedding, np.float64) / length(b)], axis=1
    )
    pca = PCA(n_components=args.pca, svd_solver="full", random_state=0).fit(rows)
    a.embedding = pca.transform(rows).astype(np.float32)
    a.save_pretrained(args.out)
    print(f"combined {rows.shape} -> {a.embedding.shape}, variance kept {pca.explained_variance_ratio_.sum():.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
