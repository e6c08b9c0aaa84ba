"""Does TMA swizzle a one-row box by its destination address? (csrc/tma_probe.cu; GPU, sm_90)

  python scripts/tma_row_probe.py

Prints which of the two readings the H200 follows; the answer decides whether the wgmma.sp
kernel's gathered B (single k-rows of X^T into a 128B-swizzled MN-major image) can be fetched by
TMA instead of cp.async (NOTES, "v8-v10").
"""
import torch

from vnmsparse.kernels import jit

ROWS = [5, 0, 17, 3, 63, 8, 1, 40]  # gathered rows, in line order

ids = torch.arange(64 * 64, dtype=torch.int16).reshape(64, 64)  # element (row, col) holds row*64 + col
src = ids.cuda().view(torch.float16)  # TMA moves bits: the ids survive as they are
kernel = jit.get_kernel("tma_probe.cu", "vnm::tma_row_probe", params=("tmap", "ptr", "ptr"))
out = torch.full((512,), -1, dtype=torch.int16, device="cuda")
kernel.launch(1, 128, [jit.tensor_map_2d(src, (64, 1), 128), torch.tensor(ROWS, dtype=torch.int32, device="cuda"),
                       out])
torch.cuda.synchronize()
img = out.cpu().reshape(8, 8, 8)  # [line r][16-byte chunk p][element e]


def expected(xor_by_line: bool) -> torch.Tensor:
    want = torch.empty(8, 8, 8, dtype=torch.int16)
    for r, row in enumerate(ROWS):
        for p in range(8):
            c = p ^ r if xor_by_line else p
            want[r, p] = ids[row, 8 * c:8 * c + 8]
    return want


by_address, by_box = torch.equal(img, expected(True)), torch.equal(img, expected(False))
print("line r, chunk p -> (source row, source chunk):")
for r in range(8):
    print(f"  {r}: " + " ".join(f"({int(img[r, p, 0]) // 64},{int(img[r, p, 0]) % 64 // 8})" for p in range(8)))
if by_address:
    print("TMA swizzles a one-row box by its destination line: a TMA gather of X^T rows fits the wgmma B image")
elif by_box:
    print("TMA swizzles relative to the box (no XOR for one-row boxes): the gather needs its own swizzle-free image")
else:
    print("neither reading: see the image above")
