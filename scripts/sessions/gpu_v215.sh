#!/usr/bin/env bash
# v215: plain 2:4 prefill in cuSPARSELt's structure (NOTES v214) from tiles the kernel already has: the
# staged form (AREG 2: A and metadata by bulk copy in the consumers' order, 16-byte shared loads) with X
# multicast over clusters of 2 / 4 row tiles, 5 stages (v58 measured A by TMA + per-row cp.async metadata
# + c4 and the register form + c4, both slower; staged + c4 was never run). Predicted: -5..+15% on
# 4096^2 x 8192 against wg128x256s6r1 (cuSPARSELt c4 247 us vs c1 303; our r1c4 320 vs r1 276).
# Then cuSPARSELt in the same call (bench, 2:4 only) for the ratio.
source "$(dirname "$0")/../gpu_lib.sh"
S=4096x4096x8192:2:4,4096x11008x8192:2:4,4096x4096x2048:2:4,1024x4096x8192:2:4,11008x4096x8192:2:4
timeout 300 python scripts/ab_wgmma.py TILE=auto,wg128x256s5t1c4,wg128x256s5t1c2,wg128x256s5t1,wg128x128s7t1c4,auto,wg128x256s5t1c4 \
  --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_staged_cluster.txt"
timeout 200 python -m vnmsparse.cli bench spmm --out "$OUT" --shapes 4096x4096,4096x11008,1024x4096,11008x4096 \
  --tokens 2048,8192 --patterns 2:4 --paths auto,cslt --tag v215 --no-plot > "$OUT/bench.txt" 2>&1
grep -E "^\| (llama|bert|[0-9]+x)" "$OUT/bench.txt" | head -30
python - "$OUT"/spmm_*v215*.csv <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
for r in rows:
    print(r["shape"], r["T"], r["path"], r["t_us"], r["note"][:40])
PY
echo "total ${SECONDS}s"
