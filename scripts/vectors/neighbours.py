"""Nearest neighbours of the most frequent words, from the vectors train.ts wrote.

    python3 scripts/vectors/neighbours.py DATA_DIR [KEYS] [POOL]

Reads DATA_DIR/vectors.vec (words by corpus frequency, most frequent first), keeps the KEYS
most frequent words that could name a topic (letters, 2-30 characters, not an English function
word), and writes DATA_DIR/neighbours.tsv: one line per word, its frequency rank, then up to 24
nearest neighbours among the POOL most frequent such words with their cosine similarity
("word<TAB>rank<TAB>other:0.734<TAB>..."), best first, above 0.45. table.ts picks from these.
Needs numpy; one thread of BLAS (the machine is shared), about a minute for 100,000 words.
"""

import os
import re
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402

data = sys.argv[1]
KEYS = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
POOL = int(sys.argv[3]) if len(sys.argv) > 3 else 120_000
TOP = 24
FLOOR = 0.45

# English function words: never a key nor a neighbour (the router drops them from prompts too).
STOP = set(
    """a about above after again against all also am an and any are aren as at be because been before
being below between both but by can cannot could couldn did didn do does doesn doing don down during each
etc few for from further get got had hadn has hasn have haven having he her here hers herself him himself
his how however i if in into is isn it its itself just let lets ll may me might more most must mustn my
myself no nor not now of off often ok okay on once only or other others otherwise our ours ourselves out
over own per please rather re s same shall shan she should shouldn since so some such t than that the
their theirs them themselves then there therefore these they this those though through thus to too
under until up upon us ve very via vs was wasn we were weren what whatever when whenever where whereas
whether which while who whom whose why will with within without won would wouldn yet you your yours
yourself yourselves d m o y e g i.e eg ie""".split()
)
WORD = re.compile(r"^[a-z][a-z0-9]{1,29}$")


def useful(w: str) -> bool:
    return bool(WORD.match(w)) and w not in STOP and sum(c.isdigit() for c in w) <= 2


words: list[str] = []
rows: list[np.ndarray] = []
with open(os.path.join(data, "vectors.vec"), encoding="utf-8", errors="replace") as f:
    n, dim = map(int, f.readline().split())
    for line in f:
        parts = line.rstrip().split(" ")
        if len(parts) != dim + 1 or not useful(parts[0]):
            continue
        words.append(parts[0])
        rows.append(np.asarray(parts[1:], dtype=np.float32))
        if len(words) >= POOL:
            break

vectors = np.vstack(rows)
# Centred: skipgram vectors share a common direction that makes every pair look alike.
vectors -= vectors.mean(axis=0, keepdims=True)
vectors /= np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9
keys = min(KEYS, len(words))
out = open(os.path.join(data, "neighbours.tsv"), "w", encoding="utf-8")
BLOCK = 1024
for start in range(0, keys, BLOCK):
    q = vectors[start : min(keys, start + BLOCK)]
    sims = q @ vectors.T
    for i in range(q.shape[0]):
        sims[i, start + i] = -1.0  # not its own neighbour
    top = np.argpartition(-sims, TOP, axis=1)[:, :TOP]
    for i in range(q.shape[0]):
        order = top[i][np.argsort(-sims[i, top[i]])]
        cells = [f"{words[j]}:{sims[i, j]:.3f}" for j in order if sims[i, j] >= FLOOR]
        out.write("\t".join([words[start + i], str(start + i), *cells]) + "\n")
out.close()
print(f"{keys} words, neighbours among {len(words)}, {dim} dimensions -> {os.path.join(data, 'neighbours.tsv')}")
