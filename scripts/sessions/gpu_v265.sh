#!/usr/bin/env bash
# v265 (run 2026-12-02; prediction refuted: the route, not the clock, NOTES v265): why 64:2:8 at K = 4096, T = 2048 runs ~10-15% slower per FLOP on 11008-12288 rows
# than on 4096 (v259: 1097 against 953 dense-equivalent TFLOPS; v260: not A's DRAM traffic, not wave
# quantisation). ncu (one kernel at a time, clocks not locked) of each: if the cycles per CTA tile match, the
# loss is the clock under sustained load (power, as 2:4's prefill, v233), not the kernel; else the sections say
# where (L2 hit rate, DRAM bytes, stalls).
# Prediction: cycles per tile within 3% (power-bound), the sustained clock lower on the longer kernels.
#   OUT=$OUT bash scripts/sessions/gpu_v265.sh      (~120 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
[ "${WARM:-1}" = 1 ] && warm 120  # (WARM=0: the two kernels compile on first use)
for s in 4096x4096x2048:64:2:8 12288x4096x2048:64:2:8 11008x4096x2048:64:2:8 4096x11008x2048:64:2:8; do
  (cd scripts && timeout 60 ncu --clock-control none -k regex:spmm_wgmma --launch-skip 1 --launch-count 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis \
    python ncu_vs_dense.py $s) > "$OUT/ncu_$s.txt" 2>&1
  echo "$s exit $?"; grep -E "Duration|Elapsed Cycles|SM Frequency|L2 Hit|DRAM Throughput|Compute \(SM\)|Memory Throughput" "$OUT/ncu_$s.txt"
done
python - "$OUT" <<'PY'
import glob, sys
with open(f"{sys.argv[1]}/ncu_rows_v265.txt", "w") as out:
    for f in sorted(glob.glob(f"{sys.argv[1]}/ncu_*x*.txt")):
        out.write(f"== {f.rsplit('/', 1)[1]}\n" + open(f).read()[-3000:])
PY
rm -f "$OUT"/ncu_*x*.txt
echo "total ${SECONDS}s"
