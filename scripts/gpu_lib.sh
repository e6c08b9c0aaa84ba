# Sourced by the scripts/gpu_*.sh session scripts (device calls): the environment, and the steps
# they share. Each leaves at most 8 files in $OUT (the device tool returns no more).
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
SECONDS=0
# the lent card in file names (h100, h200): the device tool lends either, whatever a session asks
CARD=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | grep -o "H[0-9]00" | tr A-Z a-z)

warm() {  # every kernel variant compiled in parallel (the device's cache is cold each session; tests
  # compile one variant at a time: 103 tests took 300 s from a cold cache in gpu_v38.sh)
  timeout "${1:-240}" python -m vnmsparse.cli cache warm --arch sm_90a 2>&1 | tail -1
}

gpu_tests() {  # gpu_tests LIMIT_S PYTEST_ARGS...: GPU-marked tests into gpu_tests.txt, a summary here
  local limit=$1; shift
  [ "${WARM:-1}" = 1 ] && warm
  timeout "$limit" python -m pytest -q -m gpu -p no:cacheprovider "$@" > "$OUT/gpu_tests.txt" 2>&1
  grep -E "^FAILED|^E  |passed|failed" "$OUT/gpu_tests.txt" | head -12; echo "tests took ${SECONDS}s"
}

checks() {  # checks TESTS_LIMIT_S SANITIZE_LIMIT_S PYTEST_ARGS...: gpu_tests, then memcheck; fails if a test did
  local tests_limit=$1 sanitize_limit=$2; shift 2
  gpu_tests "$tests_limit" "$@"
  sanitize "$sanitize_limit"
  echo "checks took ${SECONDS}s"
  if grep -qE "[0-9]+ (failed|errors?)\b" "$OUT/gpu_tests.txt" || ! grep -q " passed" "$OUT/gpu_tests.txt"; then
    echo "tests failed"; return 1
  fi
}

sanitize() {  # [SANITIZE_ARGS=...] sanitize LIMIT_S [TOOL]: compute-sanitizer (memcheck by default) of scripts/sanitize_spmm.py
  local tool=${2:-memcheck}
  timeout "$1" compute-sanitizer --tool "$tool" --report-api-errors no --error-exitcode 9 python scripts/sanitize_spmm.py \
    ${SANITIZE_ARGS:-} > "$OUT/$tool.txt" 2>&1
  echo "$tool: exit $? $(tail -1 "$OUT/$tool.txt")"
}

quick_grid() {  # quick_grid LIMIT_S TAG: the README's grid (cuBLAS and cuSPARSELt in the same run)
  timeout "$1" python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64,2048,4096,8192 \
    --paths auto,auto_xt,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag "$2" > "$OUT/bench.txt" 2>&1
  grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -40
}

e2e() {  # e2e LIMIT_S TAG BENCH_E2E_ARGS...: `vnmsparse bench e2e` (bf16, no cuSPARSELt) into e2e_TAG.*, its summary here
  local limit=$1 tag=$2; shift 2
  timeout "$limit" python -m vnmsparse.cli bench e2e --dtypes bf16 --no-cslt --out "$OUT" --tag "$tag" "$@" > "$OUT/log_$tag.txt" 2>&1
  echo "e2e $tag exit $?"; sed -n '/^## Summary/,/^## Results/p' "$OUT/e2e_$tag.md" | grep "^|"
}

tested_ab() {  # tested_ab VERSION KEYWORD TAG BENCH_AB_ARGS...: the wgmma GPU tests named KEYWORD, then (only if they
  # passed) bench_ab.py BENCH_AB_ARGS (its --path specs, then -- bench spmm ...) into spmm_CARD_VERSION_TAG.*
  local ver=$1 key=$2 tag=$3; shift 3
  local tests="$OUT/tests_${key}_${CARD}_${ver}.txt"
  timeout 200 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py -k "$key" > "$tests" 2>&1
  tail -3 "$tests"; echo "tests ${SECONDS}s"
  grep -q " passed" "$tests" && ! grep -q "failed" "$tests" || return 1
  timeout 280 python scripts/bench_ab.py "$@" --out "$OUT" --no-plot --tag "${CARD}_${ver}_${tag}" > "$OUT/log_${ver}.txt" 2>&1
  echo "bench exit $? ${SECONDS}s"
}

grid() {  # grid TAG TOKENS PATHS END [BENCH_ARGS...]: `bench spmm` into spmm_CARD_TAG.* with the time left before END
  local tag=$1 tokens=$2 paths=$3 left=$(($4 - SECONDS)); shift 4
  timeout $left python -m vnmsparse.cli bench spmm --out "$OUT" --tokens "$tokens" --paths "$paths" \
    --budget-seconds $((left - 30)) --tag "${CARD}_$tag" --no-plot "$@" > /dev/null 2>&1
  echo "$tag grid exit $? ${SECONDS}s"; grep -E "^Measured" "$OUT/spmm_${CARD}_$tag.md"
}

prefill_grid() {  # prefill_grid VERSION: issue 3's grid (T >= 2048, mma_sp and cuSPARSELt) with the time left before
  # END (default 570 s) into spmm_CARD_VERSION_prefill.*, its geometric means here
  grid "$1_prefill" 2048,8192 mma_sp,cslt ${END:-570}
  sed -n '/^## Geometric/,/^## Issue/p' "$OUT/spmm_${CARD}_$1_prefill.md" | grep "^|" | head -14
}

card_warm() {  # card_warm [LIMIT_S]: the card's name, clock and power limit, then every kernel variant compiled (warm)
  nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
  warm "${1:-120}" > /dev/null; echo "warm ${SECONDS}s"
}

warm_knob() {  # warm_knob MATCH [SET]: the kernel variants whose names contain MATCH compiled with the knob set SET
  # (NAME=INT[,NAME=INT...]: the whole DEFINES of the runs that use them; none: the defaults) ahead of those runs
  local set=${2:-}
  timeout 90 python -m vnmsparse.cli cache warm --arch sm_90a --match "$1" ${set:+$(printf -- "--define %s " ${set//,/ })} 2>&1 | tail -1
}

mma_sp_tests() {  # mma_sp_tests FILE LIMIT_S [PYTEST_ARGS...]: the mma.sp kernel file's GPU tests into $OUT/FILE.txt
  local file=$1 limit=$2; shift 2
  timeout "$limit" python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py "$@" > "$OUT/$file.txt" 2>&1
  grep -E "^FAILED|passed|failed" "$OUT/$file.txt" | head -8; echo "tests ${SECONDS}s"
}

ws_knob_ab() {  # ws_knob_ab VERSION LABEL SET...: ws kernel knobs' tests (every ws form), memcheck of the cp.async
  # launches (LABEL: what sanitize_spmm.py calls the knobs' cases), then the tile sweep twice: the classic and ws tiles,
  # then the ws tile under each SET (NAME=INT[,NAME=INT...], the whole DEFINES of that run; compiled ahead in parallel)
  local ver=$1 label=$2; shift 2
  local set knobs=()
  card_warm
  for set in "$@"; do
    warm_knob spmm_mma_sp_ws "$set"
    knobs+=(defaults ${set//,/ } WS)
  done
  mma_sp_tests "tests_ws_${CARD}_${ver}" 200 -k "warp_specialised or every_tile"
  SANITIZE_ARGS=--cp-async-only sanitize 150; mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_${ver}.txt"
  grep -c "$label" "$OUT/memcheck_cp_async_${CARD}_${ver}.txt"; echo "memcheck ${SECONDS}s"
  sweep() {  # R K T PATTERN CLASSIC WS
    timeout 100 python scripts/tile_sweep.py "$1" "$2" "$3" "$4" "$5" "$6" "${knobs[@]/#WS/$6}" 2>&1 | grep -v Warn; }
  { for i in 1 2; do
    sweep 4096 4096 8192 128:2:8 128,128,64,64,3 128,128,64,64,4,p4
    sweep 4096 4096 8192 128:2:16 128,128,64,64,3 128,128,64,64,4,p4
    sweep 11008 4096 2048 128:2:8 128,128,64,64,3 128,128,64,64,4,p4
    sweep 4096 4096 8192 64:2:8 64,128,32,64,3 64,256,64,64,3,p4; done; } \
    | tee "$OUT/tile_sweep_${CARD}_${ver}.txt"
  echo "total ${SECONDS}s"
}
