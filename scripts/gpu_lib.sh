# Sourced by the scripts/gpu_*.sh session scripts (device calls): the environment, and the steps
# they share. Each leaves at most 8 files in $OUT (the device tool returns no more).
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
SECONDS=0

gpu_tests() {  # gpu_tests LIMIT_S PYTEST_ARGS...: GPU-marked tests into gpu_tests.txt, a summary here
  local limit=$1; shift
  timeout "$limit" python -m pytest -q -m gpu -p no:cacheprovider "$@" > "$OUT/gpu_tests.txt" 2>&1
  grep -E "^FAILED|^E  |passed|failed" "$OUT/gpu_tests.txt" | head -12; echo "tests took ${SECONDS}s"
}

memcheck() {  # memcheck LIMIT_S: compute-sanitizer memcheck of scripts/sanitize_spmm.py
  timeout "$1" compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 python scripts/sanitize_spmm.py \
    > "$OUT/memcheck.txt" 2>&1
  echo "memcheck: exit $? $(tail -1 "$OUT/memcheck.txt")"
}

quick_grid() {  # quick_grid LIMIT_S TAG: the README's grid (cuBLAS and cuSPARSELt in the same run)
  timeout "$1" python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64,2048,4096,8192 \
    --paths auto,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag "$2" > "$OUT/bench.txt" 2>&1
  grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -40
}
