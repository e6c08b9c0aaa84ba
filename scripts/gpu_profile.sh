#!/usr/bin/env bash
# ncu on the prefill kernels whose bound is not yet known (NOTES v17): the cp.async mma.sp kernel
# (2:4 and 64:2:8, 4096^2 x 8192) and the gathered wgmma.sp kernel (128:2:8): the speed-of-light,
# warp-state and memory sections, then the per-SASS-instruction stall samples (source page, CSV).
# Usage: OUT=$OUT bash scripts/gpu_profile.sh [name kernel-regex R K T pattern path]...   (<= 8 files in $OUT)
# (path may carry profile_spmm.py's module switches in the same argument: "mma_sp spmm_mma_sp.NARROW_PREFILL_COST=0")
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
SECTIONS="--section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats --section Occupancy"
prof() {  # name kernel-regex args...
  local name=$1 kre=$2; shift 2
  timeout 150 ncu --clock-control none -k "regex:$kre" -c 1 $SECTIONS --section SourceCounters \
    -o "/tmp/$name" -f python scripts/profile_spmm.py $* > "$OUT/$name.txt" 2>&1
  ncu --import "/tmp/$name.ncu-rep" --print-details all >> "$OUT/$name.txt" 2>&1
  ncu --import "/tmp/$name.ncu-rep" --page source --print-source sass --csv > "/tmp/$name.src.csv" 2>&1
  python - "/tmp/$name.src.csv" "$OUT/$name.hot.txt" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
hdr = next((i for i, r in enumerate(rows) if any("Source" in c for c in r)), None)
out = open(sys.argv[2], "w")
if hdr is None:
    out.write("".join(",".join(r) + "\n" for r in rows[:50])); sys.exit()
h = rows[hdr]; out.write(" | ".join(h) + "\n")
key = next((i for i, c in enumerate(h) if "Warp Stall Sampling (All" in c), None)
data = [r for r in rows[hdr + 1:] if len(r) == len(h)]
def num(x):
    try: return float(x.replace(",", ""))
    except ValueError: return 0.0
if key is not None:
    data.sort(key=lambda r: -num(r[key]))
for r in data[:60]:
    out.write(" | ".join(r) + "\n")
PY
  grep -E "Duration|SM Frequency|Throughput|Warp Cycles Per Issued|Eligible|Issued Warp" "$OUT/$name.txt" | head -12
}
if [ $# -gt 0 ]; then  # name kernel-regex R K T pattern path, repeated
  while [ $# -ge 7 ]; do prof "${@:1:7}"; shift 7; done
else
  prof mma_sp_2to4 "spmm_mma_sp" 4096 4096 8192 2:4 mma_sp
  prof mma_sp_64_2_8 "spmm_mma_sp" 4096 4096 8192 64:2:8 mma_sp
  prof wgmma_128_2_8 "spmm_wgmma_sp" 4096 4096 8192 128:2:8 wgmma_sp
fi
ls -la "$OUT"
