#!/usr/bin/env bash
# v188 (prepared in the nineteenth session, not yet run; first set XT_PITCH_LINES = True in
# spmm_mma_sp.py): every GPU suite with v187's X^T pitch of whole 128-byte lines, then the grid.
# v187 measured -4..-11% at T = 24-48 on the cp.async path and -29% at T = 1000 on the auto path; its
# suite ran out of device time at 345 of 513 tests (two failures: the transpose test's old pitch
# assertion, since fixed). If everything passes, keep it on and commit the log and the grid (its T are
# powers of two, where the pitch is unchanged, so the cells should match grid v185's).
source "$(dirname "$0")/../gpu_lib.sh"
warm
python -c "import vnmsparse.kernels.spmm_mma_sp as K; print('XT_PITCH_LINES', K.XT_PITCH_LINES)"
WARM=0 gpu_tests 420
quick_grid 170 h200_v188
echo "total ${SECONDS}s"
