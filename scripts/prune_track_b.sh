#!/usr/bin/env bash
# Track B of the pruning benchmark on a GPU machine that takes 64 MiB per call: the SmolLM2 GGUF
# travels in two halves (python benchmarks/prune_bundle.py makes .prune_smollm_1 and _2), so it
# takes two consecutive calls on the same (still warm) machine:
#   call 1, carrying .prune_smollm_1:  bash scripts/prune_track_b.sh stash
#   call 2, carrying .prune_smollm_2:  OUT=$OUT bash scripts/prune_track_b.sh run [prune_quality args...]
# Then, here: python benchmarks/prune_quality.py --merge <fetched folder>/B
set -euo pipefail
KEEP=/tmp/vnm_prune_smollm_1
case "${1:-}" in
  stash)
    rm -rf "$KEEP" && cp -r .prune_smollm_1 "$KEEP" && du -sh "$KEEP" ;;
  run)
    shift
    [ -d "$KEEP" ] || { echo "no $KEEP: run 'stash' first on this machine (it must still be warm)"; exit 2; }
    python3 -m pip install -q --no-index --no-deps --target /tmp/vnm_site .prune_smollm_2/wheels/*.whl
    export PYTHONPATH=/tmp/vnm_site:$PWD/src PYTHONUNBUFFERED=1 VNM_PRUNE_ASSETS=$KEEP:$PWD/.prune_smollm_2
    python3 benchmarks/prune_quality.py --track B --device cuda --no-progress --out "${OUT:-/tmp/vnm_out}/B" "$@" ;;
  *)
    echo "usage: $0 stash | run [prune_quality args...]"; exit 2 ;;
esac
