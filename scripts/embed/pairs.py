"""(query, passage) pairs for contrastive refinement, from the documentation repositories the corpus
came from: each Markdown heading with the first 64 words of its section, and each commit subject
with the first paragraph of its body (the last 30,000 commits, merges and trailers left out).

    python scripts/embed/pairs.py MIRRORS_DIR OUT.jsonl [--per-source 6000]

MIRRORS_DIR holds one bare clone per repository (`owner+name/repo`, as the library's fetch leaves
them). Code blocks, markup and links are stripped; headings of 2 to 14 words and passages of at
least 12 words are kept, at most --per-source pairs of each kind per repository (sampled, seed 7).
"""

import argparse
import json
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

NOT_DOCS = re.compile(r"(^|/)(CHANGELOG|changelog|HISTORY|release)")
TRAILER = re.compile(
    r"^(Signed-off-by|Co-authored-by|Reviewed-by|Fixes|Closes|Change-Id|Release-Note|PR-URL|Refs).*$", re.M | re.I
)


def clean(t: str) -> str:
    t = re.sub(r"```.*?```", " ", t, flags=re.S)
    t = re.sub(r"<[^>]+>", " ", t)
    t = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", t)
    t = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", t)
    t = re.sub(r"\{[^}]*\}", " ", t)
    t = re.sub(r"[`*_>#|]", " ", t)
    t = re.sub(r"^\s*[-=]{3,}\s*$", " ", t, flags=re.M)
    return " ".join(t.split())


def markdown_blobs(git: list[str], english_only: str | None) -> list[str]:
    listing = subprocess.run(git + ["ls-tree", "-r", "-z", "HEAD"], capture_output=True).stdout.decode("utf8", "replace")
    out = []
    for row in filter(None, listing.split("\0")):
        meta, path = row.split("\t", 1)
        if english_only and not path.startswith(english_only):
            continue
        if re.search(r"\.(md|mdx|markdown)$", path) and not NOT_DOCS.search(path):
            out.append(meta.split()[2])
    return out


def heading_pairs(git: list[str], blobs: list[str]) -> list[tuple[str, str]]:
    raw = subprocess.run(git + ["cat-file", "--batch"], input=("\n".join(blobs) + "\n").encode(), capture_output=True).stdout
    pairs, i = [], 0
    while i < len(raw):
        nl = raw.index(b"\n", i)
        head = raw[i:nl].split()
        if len(head) < 3:
            break
        size = int(head[2])
        text = raw[nl + 1 : nl + 1 + size].decode("utf8", "replace")
        i = nl + 2 + size
        text = re.sub(r"^---\n.*?\n---\n", "", text, flags=re.S)
        parts = re.split(r"^(#{1,4})\s+(.+)$", text, flags=re.M)
        for k in range(1, len(parts) - 2, 3):
            q, p = clean(parts[k + 1]).split(), clean(parts[k + 2]).split()
            if 2 <= len(q) <= 14 and len(p) >= 12:
                pairs.append((" ".join(q), " ".join(p[:64])))
    return pairs


def commit_pairs(git: list[str]) -> list[tuple[str, str]]:
    log = subprocess.run(git + ["log", "--no-merges", "--format=%x1e%s%x1f%b", "-n", "30000"], capture_output=True)
    pairs = []
    for rec in log.stdout.decode("utf8", "replace").split("\x1e"):
        if "\x1f" not in rec:
            continue
        subject, body = rec.split("\x1f", 1)
        body = TRAILER.sub("", body).strip()
        para = clean(body.split("\n\n")[0]).split() if body else []
        q = clean(re.sub(r"\(#\d+\)|#\d+", "", subject)).split()
        if len(q) >= 3 and len(para) >= 12:
            pairs.append((" ".join(q), " ".join(para[:64])))
    return pairs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mirrors")
    ap.add_argument("out")
    ap.add_argument("--per-source", type=int, default=6000)
    ap.add_argument("--repos", default=None, help="a comma-separated list of owner+name (default: every one there)")
    args = ap.parse_args()
    names = args.repos.split(",") if args.repos else sorted(p.name for p in Path(args.mirrors).iterdir() if (p / "repo").is_dir())
    rows = []
    for name in names:
        git = ["git", "-C", str(Path(args.mirrors) / name / "repo")]
        # tldr's other languages live beside pages/
        heads = heading_pairs(git, markdown_blobs(git, "pages/" if name.startswith("tldr-pages") else None))
        commits = commit_pairs(git)
        rows += [(q, p, f"h:{name}") for q, p in heads] + [(q, p, f"c:{name}") for q, p in commits]
        print(f"{name}: {len(heads)} headings, {len(commits)} commits", file=sys.stderr)
    random.Random(7).shuffle(rows)
    taken, seen, out = Counter(), set(), []
    for q, p, src in rows:
        key = (q.lower(), p[:50])
        if key in seen or taken[src] >= args.per_source:
            continue
        seen.add(key)
        taken[src] += 1
        out.append(json.dumps({"q": q, "p": p, "src": src}))
    Path(args.out).write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"{len(out)} pairs", file=sys.stderr)


if __name__ == "__main__":
    main()
