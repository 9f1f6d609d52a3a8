"""How well a model finds the expected entry for the routing sets' prompts, by cosine alone.

    python scripts/embed/evaluate.py MODEL_DIR|teacher[:minilm|bge] [--sets routing,routing-b,...] [--keywords]

Per set and category: recall@1 and @5 among the prompt's project and the global scope, and the
best similarity of prompts that need nothing (what a threshold must stay above). A quick guide
for the build choices; the routing bench (scripts/bench/routing.ts) is the measure that counts.
"""

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
import numpy as np

BENCH = Path(__file__).resolve().parent.parent / "bench"


def fields(line: str, n: int) -> list[str]:
    parts = line.split("|", n - 1)
    return [p.strip() for p in parts]


def load_set(name: str, keywords: bool):
    entries = []
    scope = "global"
    kws = {}
    if keywords and (BENCH / name / "keywords.txt").exists():
        for line in (BENCH / name / "keywords.txt").read_text().splitlines():
            if line.startswith("#") or "|" not in line:
                continue
            k, v = fields(line, 2)
            kws[k] = v
    for line in (BENCH / name / "entries.txt").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@project"):
            scope = line.split()[1]
            continue
        if line.startswith("@global"):
            scope = "global"
            continue
        key, kind, title, tags, applies, body = fields(line, 6)
        text = f"{title}. {body} {tags}" + (f" {kws[key]}" if key in kws else "")
        entries.append((key, scope, text))
    prompts = []
    for line in (BENCH / name / "prompts.txt").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        cat, project, expected, text = fields(line, 4)
        exp = [] if expected == "-" else [x.strip() for x in expected.split(",") if x.strip()]
        prompts.append((cat, project, exp, text))
    return entries, prompts


def encoder(spec: str):
    if spec == "teacher" or spec.startswith("teacher:"):
        from sentence_transformers import SentenceTransformer
        from teacher import teacher_dir

        m = SentenceTransformer(str(teacher_dir(spec.partition(":")[2] or "minilm")), device="cpu")
        return lambda xs: m.encode(xs, normalize_embeddings=True, batch_size=64)
    from model2vec import StaticModel

    m = StaticModel.from_pretrained(spec)
    return lambda xs: m.encode(xs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--sets", default="routing,routing-b,routing-c,routing-d,routing-e")
    ap.add_argument("--keywords", action="store_true")
    ap.add_argument("--grid", action="store_true", help="what a similarity-alone rule (threshold, margin) would do")
    args = ap.parse_args()
    enc = encoder(args.model)
    for name in args.sets.split(","):
        entries, prompts = load_set(name, args.keywords)
        ev = enc([e[2] for e in entries])
        ev = ev / np.linalg.norm(ev, axis=1, keepdims=True).clip(1e-9)
        pv = enc([p[3] for p in prompts])
        pv = pv / np.linalg.norm(pv, axis=1, keepdims=True).clip(1e-9)
        stats = {}
        none_best = []
        tops = []  # (category, expected?, top1 correct?, top1 sim, margin)
        for (cat, project, exp, _), v in zip(prompts, pv):
            idx = [i for i, e in enumerate(entries) if e[1] in (project, "global")]
            sims = ev[idx] @ v
            order = np.argsort(-sims)
            keys = [entries[idx[i]][0] for i in order[:5]]
            tops.append((cat, bool(exp), keys[0] in exp, float(sims[order[0]]), float(sims[order[0]] - sims[order[1:10]].mean())))
            if not exp:
                none_best.append(float(sims[order[0]]))
                continue
            s = stats.setdefault(cat, [0, 0, 0])
            s[0] += 1
            s[1] += keys[0] in exp
            s[2] += any(k in exp for k in keys)
        line = " ".join(f"{c}: @1 {100*s[1]/s[0]:.0f} @5 {100*s[2]/s[0]:.0f} (n={s[0]})" for c, s in sorted(stats.items()))
        nb = np.array(none_best) if none_best else np.zeros(1)
        print(f"{name}: {line} | none best sim median {np.median(nb):.2f} p90 {np.percentile(nb, 90):.2f}")
        if args.grid:
            for t in (0.35, 0.4, 0.45, 0.5):
                for m in (0.08, 0.1, 0.12, 0.15):
                    fire = [x for x in tops if x[3] >= t and x[4] >= m]
                    para = [x for x in tops if x[0] == "para"]
                    ph = sum(1 for x in fire if x[0] == "para" and x[2]) / max(1, len(para))
                    noise = sum(1 for x in fire if not x[1]) / max(1, sum(1 for x in tops if not x[1]))
                    prec = sum(1 for x in fire if x[2]) / max(1, len(fire))
                    print(f"  alone t={t} m={m}: para hit {100*ph:.0f}% noise {100*noise:.0f}% precision {100*prec:.0f}% fired {len(fire)}")


if __name__ == "__main__":
    main()
