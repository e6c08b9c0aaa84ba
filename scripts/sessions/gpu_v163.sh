#!/usr/bin/env bash
# v163: v158's per-warpgroup epilogue synchronises each consumer warpgroup's staging by its own named
# barrier (2 + warpgroup, 128 threads): racecheck and synccheck on the tiles it runs in (the prefill
# r1 tiles and every persistent one, `sanitize_spmm.py --tiles p,r1`), as v31 did for the persistent
# tiles (0 hazards then). Predicted: 0 hazards, 0 errors.
source "$(dirname "$0")/../gpu_lib.sh"
warm
SANITIZE_ARGS="--tiles p,r1" sanitize 200 racecheck
SANITIZE_ARGS="--tiles p,r1" sanitize 150 synccheck
grep -c "rel err" "$OUT/racecheck.txt" "$OUT/synccheck.txt"
grep -iE "hazard|error" "$OUT/racecheck.txt" | sort | uniq -c | sort -rn | head -8
echo "total ${SECONDS}s"
