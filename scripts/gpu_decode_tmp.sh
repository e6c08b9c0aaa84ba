set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=/tmp/vnmcache
timeout 240 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py tests/test_ops.py tests/test_nn.py 2>&1 | tee $OUT/gpu_tests.txt | grep -E "^FAILED|^E  |passed|failed" | head -20
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 9 python scripts/sanitize_spmm.py > "$OUT/$tool.txt" 2>&1
  echo "$tool: exit $? $(grep -c 'decode kernel' $OUT/$tool.txt) decode lines; $(tail -2 $OUT/$tool.txt | tr '\n' ' ')"
done
cat $OUT/memcheck.txt $OUT/racecheck.txt > $OUT/sanitizers.txt; rm $OUT/memcheck.txt $OUT/racecheck.txt
timeout 150 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --no-plot --tokens 1,4,8,16,64,2048,4096,8192 --paths auto,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v13q 2>&1 | tee "$OUT/bench.txt" | grep -E "^\| [0-9:]+ \| T" 
timeout 150 python -m vnmsparse.cli bench e2e --workloads llama-decode --patterns 2:4,64:2:8,64:2:16,128:2:32 --dtypes bf16 --budget-seconds 100 --out $OUT --tag e2e_v13_decode --no-plot 2>&1 | tail -15 | tee $OUT/e2e.txt
ls $OUT
