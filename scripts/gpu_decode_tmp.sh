set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=/tmp/vnmcache
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py 2>&1 | tee $OUT/gpu_tests.txt | grep -E "^FAILED|^E  |passed|failed" | head -20
for tool in memcheck; do
  timeout 200 compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 9 python scripts/sanitize_spmm.py > "$OUT/$tool.txt" 2>&1
  echo "$tool: exit $? $(grep -c 'decode kernel' $OUT/$tool.txt) decode lines; $(tail -2 $OUT/$tool.txt | tr '\n' ' ')"
done
python -m vnmsparse.cli bench spmm --out "$OUT" --quick --no-plot --tokens 1,16,32,64 --paths auto,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v13d 2>&1 | tee "$OUT/bench.txt" | grep -E "^\| [0-9:]+ \| T<=64" 
NCU="ncu --clock-control none --launch-skip 2 -c 1"
for t in 1 64; do timeout 60 $NCU --section SpeedOfLight --section WarpStateStats -k regex:decode python scripts/profile_spmm.py 4096 4096 $t 64:2:8 mma_sp_decode 2>&1 | grep -E "Duration|DRAM Throughput|Elapsed|SM Active|Warp Cycles Per Issued" ; done | tee $OUT/ncu.txt
