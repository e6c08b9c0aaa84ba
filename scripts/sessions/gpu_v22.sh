#!/usr/bin/env bash
# Branch staged-a (NOTES "v22"): the fragment image staged through the ring by bulk copy and read
# into registers by 16-byte shared loads a stage ahead; v23: the X^T transpose with 16-byte accesses.
# GPU tests of every tile (v22's included) and of both transposes,
# memcheck (its cases included), then the A/B against v21's tiles and v21 with a 6-set ring.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v22.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 240 -k "every_tile or repeatable or x_by_tma or feature_major" tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py
sanitize 150
S24=4096x4096x8192:2:4,11008x4096x8192:2:4,4096x11008x8192:2:4
timeout 150 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s5t1,wg256x128s6t2,wg128x256s6r1,wg128x256s5t1,wg256x128s6t2 \
  --shapes $S24 2>&1 | tee "$OUT/ab.txt" | tail -4
SG=4096x4096x8192:128:2:8,11008x4096x4096:128:2:16,4096x4096x8192:128:2:32
timeout 100 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s5t1,wg128x256s6r1,wg128x256s5t1 --shapes $SG 2>&1 | tee -a "$OUT/ab.txt" | tail -4
timeout 100 python scripts/ab_wgmma.py VNM_WG_AREG_SETS=5,6,5,6 --define TILE=wg128x256s6r1 --shapes $S24,$SG 2>&1 | tee -a "$OUT/ab.txt" | tail -7
# the gathered producer's top stall in v21 (ncu): the column word's byte extract (look-ahead 3)
timeout 80 python scripts/ab_wgmma.py VNM_WG_COLUMN_LOOKAHEAD=3,6,3,6 --shapes $SG 2>&1 | tee -a "$OUT/ab.txt" | tail -4
# the X^T transpose the gathered op runs first (~18% of 4096^2 x 8192 128:2:8): ours vs torch's
python - <<'PY' 2>&1 | tee -a "$OUT/ab.txt"
import torch
from vnmsparse.kernels import spmm_mma_sp as K
for t, k in ((8192, 4096), (4096, 11008), (2048, 4096)):
    x = torch.randn(t, k, device="cuda", dtype=torch.bfloat16)
    assert torch.equal(K.feature_major(x)[0][:, :t], x.t())
    def ours(wide):
        def run():
            K.TRANSPOSE16 = wide
            return K.feature_major(x)
        return run
    for name, fn in (("transpose_pad", ours(False)), ("transpose_pad16", ours(True)), ("torch .t().contiguous()", lambda: x.t().contiguous())):
        for _ in range(3): fn()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(20): fn()
        b.record(); b.synchronize()
        us = a.elapsed_time(b) * 1e3 / 20
        print(f"{t}x{k} {name:24s} {us:7.1f} us  {4 * t * k / us / 1e6:.2f} TB/s")
PY
