"""Write a model2vec static model as the table the binary embeds, and the fixtures that pin it.

    python scripts/embed/export.py MODEL_DIR [--out src/retrieval/embed/model.bin] [--fixtures test/fixtures/embed]

Layout of model.bin (little-endian; src/retrieval/embed/embed.ts reads it):
  header, 64 bytes: "CEM1", u32 dims, u32 tokens, u32 slots (a power of two), u32 string bytes,
    u32 unknown-token id, u32 padding-token id, u32 reserved, 32 bytes model id (ASCII, NUL-padded)
  i32 slots[slots]     open addressing on fnv1a32(token's UTF-8 bytes), linear probing; -1 empty
  u32 offsets[tokens + 1] into the strings
  u8 strings[string bytes], padded to 4
  f32 scales[tokens]   a row's value = int8 x scale
  i8 rows[tokens x dims]
Rows are model2vec's token vectors (PCA, SIF-weighted) quantised per row to int8.
Fixtures: strings.jsonl with the Python tokenizer's ids and the float model's unit embedding.
"""

import argparse
import hashlib
import json
import os
import random
import struct
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
import numpy as np
from model2vec import StaticModel

ROOT = Path(__file__).resolve().parent.parent.parent


def fnv1a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def table(model: StaticModel, model_id: str) -> bytes:
    tok = json.loads(model.tokenizer.to_str())
    vocab: dict[str, int] = tok["model"]["vocab"]
    n = len(vocab)
    emb = np.asarray(model.embedding, dtype=np.float32)
    assert emb.shape[0] == n, (emb.shape, n)
    dims = emb.shape[1]
    tokens = [None] * n
    for t, i in vocab.items():
        tokens[i] = t
    slots = 1
    while slots < n * 2:
        slots *= 2
    table_ = np.full(slots, -1, dtype=np.int32)
    encoded = [t.encode("utf-8") for t in tokens]
    for i, b in enumerate(encoded):
        s = fnv1a(b) & (slots - 1)
        while table_[s] != -1:
            s = (s + 1) & (slots - 1)
        table_[s] = i
    offsets = np.zeros(n + 1, dtype=np.uint32)
    for i, b in enumerate(encoded):
        offsets[i + 1] = offsets[i] + len(b)
    strings = b"".join(encoded)
    strings += b"\0" * (-len(strings) % 4)
    peak = np.abs(emb).max(axis=1)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    rows = np.clip(np.rint(emb / scales[:, None]), -127, 127).astype(np.int8)
    unk = vocab.get(tok["model"].get("unk_token", "[UNK]"), 0xFFFFFFFF)
    pad = vocab.get("[PAD]", 0xFFFFFFFF)
    head = b"CEM1" + struct.pack("<7I", dims, n, slots, int(offsets[-1]), unk, pad, 0)
    head += model_id.encode("ascii")[:32].ljust(32, b"\0")
    assert len(head) == 64
    return head + table_.tobytes() + offsets.tobytes() + strings + scales.tobytes() + rows.tobytes()


FIXED = [
    "",
    "   ",
    "Deploys use ArgoCD",
    "We ship through Argo",
    "Never log card data",
    "Can I print the shopper's sixteen digits and the three-digit code on the back to stdout while I chase this decline?",
    "Long lists use FlashList",
    "Authorisations expire after 7 days",
    "Crème brûlée über naïve café façade",
    "数据库连接池 uses PostgreSQL 16",
    "getServerSideProps snake_case_identifier camelCaseIdentifier HTTP2Server",
    "a" * 150,
    "x" * 101 + " word",
    "tabs\tand\nnewlines\r\nand \u00a0nbsp \u200b zero-width",
    "emoji 🚀 and symbols ™ © — – … “quotes” ‘single’",
    "path/to/file.ts:42 and https://example.com/a?b=c#d",
    "ÀÉÎÕÜ ÿ ß Æ Ø Å ñ ç",
    "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３",
    "Привет мир, γειά σου κόσμε, مرحبا",
    "日本語のテキストと한국어",
    "don't won't can't it's I'm you're",
    "v1.2.3-beta+build.5 0x1F 3.14159 1e-9 -42",
]


def fixture_strings(count: int) -> list[str]:
    """The fixed edge cases, then sentences from the routing sets and mixtures of their words (seeded)."""
    out = list(FIXED)
    rng = random.Random(1)
    lines = []
    for p in sorted((ROOT / "scripts" / "bench").glob("routing*/*.txt")):
        for line in p.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#") and "|" in line:
                lines.append(line.split("|")[-1].strip())
    rng.shuffle(lines)
    out += lines[: count // 2]
    words = " ".join(lines).split()
    while len(out) < count:
        out.append(" ".join(rng.choice(words) for _ in range(rng.randint(1, 40))))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--out", default=str(ROOT / "src" / "retrieval" / "embed" / "model.bin"))
    ap.add_argument("--fixtures", default=str(ROOT / "test" / "fixtures" / "embed"))
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--name", default="minilm-l6-static", help="the model id's prefix (model.json keeps the whole id; the table's header its first 32 characters)")
    args = ap.parse_args()
    model = StaticModel.from_pretrained(args.model)
    st = Path(args.model) / "model.safetensors"
    model_id = hashlib.sha256(st.read_bytes() + model.tokenizer.to_str().encode()).hexdigest()[:16]
    model_id = f"{args.name}-{model_id}"
    data = table(model, model_id)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_bytes(data)
    dims = int(np.asarray(model.embedding).shape[1])
    info = {"id": model_id, "dims": dims, "tokens": len(model.tokens), "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest()}
    Path(args.out).with_suffix(".json").write_text(json.dumps(info, indent=2) + "\n")
    print(f"wrote {args.out}: {len(data)} bytes, model id {model_id}", file=sys.stderr)
    fx = Path(args.fixtures)
    fx.mkdir(parents=True, exist_ok=True)
    strings = fixture_strings(args.count)
    ids = model.tokenize(strings)
    vecs = model.encode(strings)
    with open(fx / "strings.jsonl", "w", encoding="utf-8") as f:
        for s, i, v in zip(strings, ids, vecs):
            f.write(json.dumps({"text": s, "ids": [int(x) for x in i], "vec": [round(float(x), 5) for x in v]}, ensure_ascii=False) + "\n")
    print(f"wrote {len(strings)} fixtures to {fx}", file=sys.stderr)


if __name__ == "__main__":
    main()
