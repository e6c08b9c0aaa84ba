"""Operand layouts of ``wgmma.mma_async.sp.sync.aligned.m64nNk32.f32.{bf16,f16}`` (sm_90a).

Pure-torch builders of every operand of one sparse warpgroup MMA from the canonical V:N:M parts
(see :mod:`vnmsparse.format`), their inverses, and a launcher of the single-instruction probes in
``csrc/wgmma_sp_probe.cu``. The formulas in these docstrings are the reference for the Hopper
kernel; the GPU tests in ``tests/test_wgmma_sp_layout.py`` prove them on the hardware.

Notation
--------
One warpgroup = 128 threads, ``t = 32*w + 4*gid + tig`` (warp ``w`` in 0..3, ``gid = lane >> 2``,
``tig = lane & 3``). The instruction computes ``D[64 x N] = A[64 x 32] @ B[32 x N]`` in fp32.

In a V:N:M tile every row keeps, per group ``g`` of 4 gathered columns (the block's kept columns),
2 values at slots ``p0 < p1``; ``values[r, g, j]`` is the value at slot ``p_j`` and the canonical
4-bit code of ``(r, g)`` is ``p0 | p1 << 2`` (low nibble of ``positions[r, g // 2]`` for even g,
high nibble for odd g). After the gather, group g occupies B rows ``4g .. 4g+3`` and the dense A
is ``A[r, 4g + p_j] = values[r, g, j]`` (:func:`dense_from_parts`). That is exactly the 2:4
structure wgmma.sp wants: a 4-wide chunk of a row of A is one group, and a k32 step is 8 groups.
A pipeline stage of ``KS = 16`` groups is 2 k32 steps (``ks`` = 0, 1).

The stored (compressed) A is ``S[r, 2g + j] = values[r, g, j]`` -- ``values`` viewed as
``[R, 2G]``, unchanged canonical memory. wgmma.sp's A operand is S (64 x 16 per k32 step).

A from registers (PTX ISA 9.7.15.6.2.1, Figure 175; CUTLASS ``ALayout_64x32`` for sparse 16-bit)
    Thread t holds 4 b32 registers ``a[i]``, i = 0..3, each the two stored values of one group
    (low 16 bits = ``values[., ., 0]``)::

        row(t, i)   = 16*w + gid + 8*(i & 1)
        group(t, i) = 8*ks + tig + 4*(i >> 1)          (stored columns 2*group, 2*group + 1)

    i.e. the dense m64nNk16 A fragment applied to S. Per warp this is the ``ldmatrix.x4`` result
    of its 16 rows of S: lane l addresses row ``16*w + (l & 15)``, stored column
    ``16*ks + 8*(l >> 4)`` (the same ldmatrix the sm80 kernel issues for one mma.sp A fragment).

Metadata (PTX ISA Figure 176 -- the same figure as mma.sp m16n8k32 f16/bf16)
    Each warp gives the metadata of its 16 rows. With sparsity selector ``sel`` (0 or 1), the
    threads with ``tig >> 1 == sel`` supply it, the others are ignored. With ``h = tig & 1``::

        bits  0..15 = codes of row 16*w + gid,     groups 8*ks + 4*h + c, c = 0..3, at bits 4c..4c+3
        bits 16..31 = codes of row 16*w + gid + 8, same groups

    Because the canonical codes are packed two groups per byte, low nibble first, a row's 4
    bytes ``positions[r, 4*ks : 4*ks + 4]`` read as a little-endian u32 ``lo`` (row gid) and ``hi``
    (row gid + 8) give the word with ONE byte permute, the same one the sm80 kernel uses::

        word = __byte_perm(lo, hi, h ? 0x7632 : 0x5410)

    Computing it with ``h = tig & 1`` in every thread makes it valid for either selector.

Accumulator D (PTX ISA Figure 149, wgmma.mma_async m64nNk16/k32 f32; CUTLASS ``CLayout_64xN``)
    Thread t holds ``N/2`` fp32 registers ``d[i]``::

        row(t, i) = 16*w + gid + 8*((i >> 1) & 1)
        col(t, i) = 8*(i >> 2) + 2*tig + (i & 1)

Shared-memory matrices and descriptors (PTX ISA 9.7.15.5.1.2 canonical layouts, matrix-descriptor
format; CUTLASS ``make_gmma_desc``). Elements are 16-bit, ``S`` = swizzle width in bytes
(32, 64, 128), ``0`` = no swizzle. All byte offsets are relative to the image start, which must be
1024-byte aligned (descriptor base offset 0). Swizzling XORs address bits::

    swz_S(o) = o ^ (((o >> 7) & (S/16 - 1)) << 4)          (Swizzle<log2(S/16), 4, 3>)

* K-major (k contiguous), ``x`` = the M (A) or N (B) index, ``k`` the element along K::

      S > 0:  o = swz_S((x // 8)*SBO + (x % 8)*S + 2*k)          SBO = 8*S, LBO unused (16)
              needs 2*K_tile <= S: one swizzle row holds the whole K of the tile;
              k32 step ks of B starts ks*64 bytes in, of stored A ks*32 bytes in
      S = 0:  o = (x // 8)*SBO + (k // 8)*LBO + (x % 8)*16 + 2*(k % 8)
              (8 x 16-byte core matrices) LBO = 128, SBO = 16*K_tile; k32 step ks of B starts
              ks*4*LBO bytes in, of stored A ks*2*LBO bytes in

* MN-major (n contiguous; B = rows of X^T, which is what a V:N:M gather produces), element (k, n)::

      S > 0:  o = swz_S((2*n // S)*LBO + (k // 8)*SBO + (k % 8)*S + (2*n) % S)
              SBO = 8*S (8-row k groups), LBO = K_tile*S (one S-wide column slab of all K rows;
              a 128B-swizzled slab is exactly one TMA box of 64 tokens); step ks at ks*4*SBO
      S = 0:  o = (n // 8)*SBO + (k // 8)*LBO + (k % 8)*16 + 2*(n % 8)
              LBO = 128 (next 8 k), SBO = 16*K_tile (next 8 n); step ks at ks*4*LBO

  (For MN-major the roles of LBO/SBO swap between swizzled and unswizzled layouts -- CUTLASS
  ``make_gmma_desc<Major::MN>``.)

* Descriptor (64-bit)::

      bits  0-13  (addr & 0x3FFFF) >> 4      bits 16-29  LBO >> 4      bits 32-45  SBO >> 4
      bits 49-51  base offset = 0            bits 62-63  layout: none 0, 128B 1, 64B 2, 32B 3

  The instruction's immediate ``imm-trans-b`` is 0 for a K-major B, 1 for MN-major; A from
  shared memory is K-major (``imm-trans-a`` = 0).
"""

from __future__ import annotations

import dataclasses
import math

import torch

WARPGROUP = 128
"""Threads of one warpgroup, the unit that issues wgmma."""

GROUPS_PER_KSTEP = 8
"""Groups (4-wide chunks of gathered K) per k32 step of the instruction."""

SWIZZLES = (0, 32, 64, 128)
LAYOUT_TYPE = {0: 0, 128: 1, 64: 2, 32: 3}
"""Descriptor bits 62-63 by swizzle width in bytes."""

VALID_CODES = (0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b1110)
"""The six 4-bit codes ``p0 | p1 << 2`` with ``p0 < p1``."""

PROBE_SOURCE = "wgmma_sp_probe.cu"
PROBE_PARAMS = ("ptr", "ptr", "ptr", "i32", "i32", "i32", "i32", "ptr", "i32", "i32", "i32", "i32", "ptr")

_CTYPE = {torch.bfloat16: "__nv_bfloat16", torch.float16: "__half"}


# ------------------------------------------------------------------------------------------------
# bit helpers


def _to_i32(x: torch.Tensor) -> torch.Tensor:
    """int64 holding u32 bit patterns -> int32 tensor with the same bits."""
    x = x.to(torch.int64) & 0xFFFFFFFF
    return torch.where(x >= 2**31, x - 2**32, x).to(torch.int32)


def _to_u32(x: torch.Tensor) -> torch.Tensor:
    """int32 bit patterns -> int64 in [0, 2**32)."""
    return x.to(torch.int64) & 0xFFFFFFFF


def thread_coords(device=None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(w, gid, tig) of the 128 threads of a warpgroup, each an int64 tensor [128]."""
    t = torch.arange(WARPGROUP, device=device)
    return t // 32, (t % 32) // 4, t % 4


# ------------------------------------------------------------------------------------------------
# canonical parts <-> dense tiles


def unpack_codes(positions: torch.Tensor, groups: int) -> torch.Tensor:
    """Canonical packed codes uint8 [R, ceil(G/2)] -> one code per (row, group), uint8 [R, G]."""
    p = positions.to(torch.int64)
    codes = torch.stack([p & 0xF, p >> 4], dim=-1).reshape(p.shape[0], -1)[:, :groups]
    return codes.to(torch.uint8)


def pack_codes(codes: torch.Tensor) -> torch.Tensor:
    """Inverse of :func:`unpack_codes`: uint8 [R, G] -> uint8 [R, ceil(G/2)]."""
    c = codes.to(torch.int64)
    if c.shape[1] % 2:
        c = torch.cat([c, torch.zeros_like(c[:, :1])], dim=1)
    return (c[:, 0::2] | (c[:, 1::2] << 4)).to(torch.uint8)


def dense_from_parts(values: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """Gathered-space dense A: ``A[r, 4g + p_j] = values[r, g, j]`` -> [R, 4G] in values' dtype."""
    rows, groups, _ = values.shape
    codes = unpack_codes(positions, groups).to(torch.int64)
    p = torch.stack([codes & 3, codes >> 2], dim=-1)  # [R, G, 2]
    dense = torch.zeros(rows, groups, 4, dtype=values.dtype, device=values.device)
    dense.scatter_(2, p, values)
    return dense.reshape(rows, 4 * groups)


def random_tile(rows: int, groups: int, dtype=torch.bfloat16, generator=None, device=None):
    """Random V:N:M tile: a random 2-of-4 choice per (row, group), standard-normal values.

    Returns ``(values [rows, groups, 2], positions [rows, ceil(groups/2)])`` in canonical form.
    """
    choice = torch.randint(0, len(VALID_CODES), (rows, groups), generator=generator)
    codes = torch.tensor(VALID_CODES, dtype=torch.uint8)[choice]
    values = torch.randn(rows, groups, 2, generator=generator).to(dtype)
    return values.to(device), pack_codes(codes).to(device)


def stored_matrix(values: torch.Tensor) -> torch.Tensor:
    """The compressed A, ``S[r, 2g + j] = values[r, g, j]`` -> [R, 2G] (a view of canonical memory)."""
    return values.reshape(values.shape[0], -1)


# ------------------------------------------------------------------------------------------------
# A in registers


def _a_index(kstep: int, device=None):
    w, gid, tig = thread_coords(device)
    i = torch.arange(4, device=device)
    rows = (16 * w + gid)[:, None] + 8 * (i & 1)[None, :]
    groups = (GROUPS_PER_KSTEP * kstep + tig)[:, None] + 4 * (i >> 1)[None, :]
    return rows, groups


def a_fragments(values: torch.Tensor, kstep: int = 0) -> torch.Tensor:
    """A register operand of one k32 step: int32 [128, 4] (u32 bit patterns), thread-major.

    ``a[t, i]`` = the two stored values of row ``16w + gid + 8(i & 1)``, group
    ``8*kstep + tig + 4(i >> 1)``; low half = ``values[., ., 0]``. ``values`` is [64, G, 2],
    G >= 8*(kstep + 1).
    """
    if values.shape[0] != 64 or values.shape[2] != 2:
        raise ValueError(f"values must be [64, G, 2], got {tuple(values.shape)}")
    words = values.contiguous().view(torch.int32)[..., 0]  # [64, G]: the pair as one little-endian u32
    rows, groups = _a_index(kstep, values.device)
    return words[rows, groups].contiguous()


def values_from_a_fragments(frags: torch.Tensor, dtype, groups: int = GROUPS_PER_KSTEP, kstep: int = 0):
    """Inverse of :func:`a_fragments`: [128, 4] -> values [64, groups, 2] (groups of other k-steps zero)."""
    words = torch.zeros(64, groups, dtype=torch.int32, device=frags.device)
    rows, grp = _a_index(kstep, frags.device)
    words[rows, grp] = frags
    return words[..., None].view(dtype).reshape(64, groups, 2)


# ------------------------------------------------------------------------------------------------
# metadata


def metadata_words(positions: torch.Tensor, kstep: int = 0, sel: int = 0, others: str = "same") -> torch.Tensor:
    """Metadata register of one k32 step for every thread: int32 [128] (u32 bit patterns).

    Threads with ``tig >> 1 == sel`` get the word of the module docstring's formula
    (``h = tig & 1``, rows ``16w + gid`` / ``+ 8``, groups ``8*kstep + 4h .. + 3``). The other pair gets, by ``others``:
    ``"same"`` the same formula (what a kernel should do: valid for either selector), or
    ``"wrong"`` a valid but different code in every nibble (to prove the instruction ignores them).
    """
    if sel not in (0, 1):
        raise ValueError("16-bit wgmma.sp takes sparsity selector 0 or 1")
    w, gid, tig = thread_coords(positions.device)
    h = tig & 1
    codes = unpack_codes(positions, positions.shape[1] * 2).to(torch.int64)
    row = 16 * w + gid
    word = torch.zeros(WARPGROUP, dtype=torch.int64, device=positions.device)
    for c in range(4):
        g = GROUPS_PER_KSTEP * kstep + 4 * h + c
        word |= codes[row, g] << (4 * c)
        word |= codes[row + 8, g] << (16 + 4 * c)
    if others == "wrong":
        selected = (tig >> 1) == sel
        word = torch.where(selected, word, _perturb_word(word))
    elif others != "same":
        raise ValueError(f"others must be 'same' or 'wrong', got {others!r}")
    return _to_i32(word)


def metadata_words_from_bytes(positions: torch.Tensor, kstep: int = 0) -> torch.Tensor:
    """The same words as ``metadata_words(..., others="same")``, computed the kernel's way.

    ``lo``/``hi`` = bytes ``positions[r, 4*kstep : 4*kstep + 4]`` of rows ``16w + gid`` and
    ``16w + gid + 8`` as little-endian u32; ``word = byte_perm(lo, hi, h ? 0x7632 : 0x5410)``.
    """
    w, gid, tig = thread_coords(positions.device)
    b = positions[:, 4 * kstep: 4 * kstep + 4].contiguous().view(torch.int32)[:, 0]
    row = 16 * w + gid
    lo, hi = _to_u32(b[row]), _to_u32(b[row + 8])
    sel = torch.where((tig & 1) == 1, 0x7632, 0x5410)
    return _to_i32(_byte_perm(lo, hi, sel))


def _byte_perm(x: torch.Tensor, y: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """CUDA ``__byte_perm(x, y, s)`` for selectors with nibbles < 8 (no sign replication)."""
    pool = x | (y << 32)
    out = torch.zeros_like(x)
    for n in range(4):
        idx = (s >> (4 * n)) & 7
        out |= ((pool >> (8 * idx)) & 0xFF) << (8 * n)
    return out


def codes_from_metadata_words(words: torch.Tensor, kstep: int = 0, sel: int = 0, groups: int | None = None):
    """Inverse of :func:`metadata_words`: codes uint8 [64, groups] read from the selected pair."""
    groups = GROUPS_PER_KSTEP * (kstep + 1) if groups is None else groups
    w, gid, tig = thread_coords(words.device)
    word = _to_u32(words)
    codes = torch.zeros(64, groups, dtype=torch.int64, device=words.device)
    selected = ((tig >> 1) == sel).nonzero().flatten()
    for t in selected.tolist():
        r = 16 * int(w[t]) + int(gid[t])
        for c in range(4):
            g = GROUPS_PER_KSTEP * kstep + 4 * (int(tig[t]) & 1) + c
            codes[r, g] = (int(word[t]) >> (4 * c)) & 0xF
            codes[r + 8, g] = (int(word[t]) >> (16 + 4 * c)) & 0xF
    return codes.to(torch.uint8)


def _perturb_word(word: torch.Tensor) -> torch.Tensor:
    """Replace every nibble's valid code with the next valid code (still valid, always different)."""
    nxt = torch.zeros(16, dtype=torch.int64, device=word.device)
    for a, b in zip(VALID_CODES, VALID_CODES[1:] + VALID_CODES[:1]):
        nxt[a] = b
    out = torch.zeros_like(word)
    for n in range(8):
        nib = (word >> (4 * n)) & 0xF
        out |= nxt[nib] << (4 * n)
    return out


# ------------------------------------------------------------------------------------------------
# accumulators


def accumulator_coords(n: int, device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """(row, col) of accumulator register i of thread t: two int64 tensors [128, n/2]."""
    w, gid, tig = thread_coords(device)
    i = torch.arange(n // 2, device=device)
    row = (16 * w + gid)[:, None] + 8 * ((i >> 1) & 1)[None, :]
    col = 8 * (i >> 2)[None, :] + (2 * tig)[:, None] + (i & 1)[None, :]
    return row, col


def decode_accumulators(d: torch.Tensor, n: int) -> torch.Tensor:
    """Probe output in register order ``d[t * n/2 + i]`` (or [128, n/2]) -> D [64, n]."""
    d = d.reshape(WARPGROUP, n // 2)
    row, col = accumulator_coords(n, d.device)
    out = torch.full((64, n), float("nan"), dtype=d.dtype, device=d.device)
    out[row, col] = d
    return out


def encode_accumulators(dmat: torch.Tensor) -> torch.Tensor:
    """Inverse of :func:`decode_accumulators`: D [64, n] -> register order [128, n/2]."""
    row, col = accumulator_coords(dmat.shape[1], dmat.device)
    return dmat[row, col]


# ------------------------------------------------------------------------------------------------
# shared-memory images and descriptors


def swizzle_offset(off: torch.Tensor, swizzle: int) -> torch.Tensor:
    """``o ^ (((o >> 7) & (S/16 - 1)) << 4)``; identity for ``swizzle == 0``."""
    if swizzle == 0:
        return off
    return off ^ (((off >> 7) & (swizzle // 16 - 1)) << 4)


@dataclasses.dataclass
class SmemImage:
    """A shared-memory operand image: bytes to copy to a 1024-byte aligned address, and its descriptor."""

    data: torch.Tensor  # 1-D, the element dtype, len * 2 bytes (a multiple of 16)
    major: str  # "k" or "mn"
    swizzle: int
    lbo: int  # bytes
    sbo: int  # bytes
    kstep_bytes: int  # start-address advance per k32 step

    @property
    def nbytes(self) -> int:
        return self.data.numel() * self.data.element_size()

    def descriptor(self, addr: int = 0, kstep: int = 0) -> int:
        return make_descriptor(addr + kstep * self.kstep_bytes, self.lbo, self.sbo, self.swizzle)


def kmajor_layout(rows: int, kelems: int, swizzle: int) -> tuple[int, int]:
    """(LBO, SBO) in bytes of the packed K-major image of a [rows x kelems] 16-bit tile."""
    _check_swizzle(swizzle)
    if swizzle:
        if 2 * kelems > swizzle:
            raise ValueError(f"K-major {swizzle}B swizzle holds at most {swizzle // 2} elements of K, got {kelems}")
        return 16, 8 * swizzle
    if kelems % 8:
        raise ValueError("unswizzled K-major tiles need K a multiple of 8")
    return 128, 16 * kelems


def kmajor_offsets(rows: int, kelems: int, swizzle: int, lbo: int, sbo: int) -> torch.Tensor:
    """Byte offset of element (x, k) of a K-major tile: int64 [rows, kelems] (module docstring)."""
    x = torch.arange(rows)[:, None]
    k = torch.arange(kelems)[None, :]
    if swizzle:
        return swizzle_offset((x // 8) * sbo + (x % 8) * swizzle + 2 * k, swizzle)
    return (x // 8) * sbo + (k // 8) * lbo + (x % 8) * 16 + 2 * (k % 8)


def mnmajor_layout(kelems: int, mn: int, swizzle: int) -> tuple[int, int]:
    """(LBO, SBO) in bytes of the packed MN-major image of a [kelems x mn] 16-bit tile."""
    _check_swizzle(swizzle)
    if kelems % 8 or (2 * mn) % max(swizzle, 16):
        raise ValueError(f"MN-major tile [{kelems} x {mn}] does not tile {swizzle}B atoms")
    if swizzle:
        return kelems * swizzle, 8 * swizzle
    return 128, 16 * kelems


def mnmajor_offsets(kelems: int, mn: int, swizzle: int, lbo: int, sbo: int) -> torch.Tensor:
    """Byte offset of element (k, n) of an MN-major tile: int64 [kelems, mn] (module docstring)."""
    k = torch.arange(kelems)[:, None]
    n = torch.arange(mn)[None, :]
    if swizzle:
        return swizzle_offset((2 * n // swizzle) * lbo + (k // 8) * sbo + (k % 8) * swizzle + (2 * n) % swizzle,
                              swizzle)
    return (n // 8) * sbo + (k // 8) * lbo + (k % 8) * 16 + 2 * (n % 8)


def _check_swizzle(swizzle: int) -> None:
    if swizzle not in SWIZZLES:
        raise ValueError(f"swizzle must be one of {SWIZZLES} (bytes), got {swizzle}")


def _scatter_image(tile: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    nbytes = int(offsets.max()) + 2
    nbytes = (nbytes + 15) // 16 * 16
    img = torch.zeros(nbytes // 2, dtype=tile.dtype)
    img[(offsets // 2).flatten()] = tile.cpu().flatten()
    return img.to(tile.device)


def b_smem_image(b: torch.Tensor, major: str = "mn", swizzle: int = 128) -> SmemImage:
    """Shared-memory image of a dense B tile [K x N] (K = 32 * k-steps), K- or MN-major.

    ``major="k"``: element (k, n) at ``kmajor_offsets`` with x = n; ``major="mn"``: at
    ``mnmajor_offsets``. The k32 step ``ks`` starts ``ks * kstep_bytes`` into the image.
    """
    kelems, n = b.shape
    if kelems % 32:
        raise ValueError("B tiles hold whole k32 steps")
    if major == "k":
        if swizzle and swizzle < 64:
            raise ValueError("a k32 step of a K-major B is 64 bytes per row: needs 64B/128B swizzle or none")
        lbo, sbo = kmajor_layout(n, kelems, swizzle)
        img = _scatter_image(b.t(), kmajor_offsets(n, kelems, swizzle, lbo, sbo))
        step = 64 if swizzle else 4 * lbo
    elif major == "mn":
        lbo, sbo = mnmajor_layout(kelems, n, swizzle)
        img = _scatter_image(b, mnmajor_offsets(kelems, n, swizzle, lbo, sbo))
        step = 4 * sbo if swizzle else 4 * lbo
    else:
        raise ValueError(f"major must be 'k' or 'mn', got {major!r}")
    return SmemImage(img, major, swizzle, lbo, sbo, step)


def b_from_smem_image(image: SmemImage, kelems: int, n: int) -> torch.Tensor:
    """Inverse of :func:`b_smem_image`: read the dense [kelems x n] tile back."""
    if image.major == "k":
        off = kmajor_offsets(n, kelems, image.swizzle, image.lbo, image.sbo).t()
    else:
        off = mnmajor_offsets(kelems, n, image.swizzle, image.lbo, image.sbo)
    return image.data.cpu()[off // 2].to(image.data.device)


def a_smem_image(values: torch.Tensor, swizzle: int = 64) -> SmemImage:
    """K-major shared-memory image of the stored A of a [BM, G, 2] tile (BM % 8 == 0, G % 8 == 0).

    Element ``S[r, c]`` at ``kmajor_offsets(BM, 2G, swizzle)`` with x = r. A stage of 16 groups is
    32 stored columns = 64 bytes per row: 64B swizzle (SBO = 512). The m64 sub-tile starting at row
    m0 starts ``(m0 // 8) * SBO`` bytes in; k32 step ks ``ks * kstep_bytes`` bytes in.
    """
    s = stored_matrix(values)
    rows, cols = s.shape
    if rows % 8 or values.shape[1] % GROUPS_PER_KSTEP:
        raise ValueError("A tiles need BM % 8 == 0 and whole k32 steps")
    lbo, sbo = kmajor_layout(rows, cols, swizzle)
    img = _scatter_image(s, kmajor_offsets(rows, cols, swizzle, lbo, sbo))
    return SmemImage(img, "k", swizzle, lbo, sbo, 32 if swizzle else 2 * lbo)


def make_descriptor(addr: int, lbo: int, sbo: int, swizzle: int) -> int:
    """64-bit wgmma shared-memory matrix descriptor (module docstring); mirrors ``vnm::gmma_desc``."""
    _check_swizzle(swizzle)
    return (((addr & 0x3FFFF) >> 4) | (((lbo >> 4) & 0x3FFF) << 16) | (((sbo >> 4) & 0x3FFF) << 32)
            | (LAYOUT_TYPE[swizzle] << 62))


def decode_descriptor(desc: int) -> dict:
    """Fields of a descriptor, in bytes."""
    layout = (desc >> 62) & 3
    return {
        "addr": (desc & 0x3FFF) << 4,
        "lbo": ((desc >> 16) & 0x3FFF) << 4,
        "sbo": ((desc >> 32) & 0x3FFF) << 4,
        "base_offset": (desc >> 49) & 7,
        "swizzle": {v: k for k, v in LAYOUT_TYPE.items()}[layout],
    }


# ------------------------------------------------------------------------------------------------
# reference and probe launcher


def reference(values: torch.Tensor, positions: torch.Tensor, b: torch.Tensor, kstep: int = 0) -> torch.Tensor:
    """``A_dense[:, 32ks : 32ks+32] @ B[32ks : 32ks+32]`` in fp32 (what one probe computes)."""
    a = dense_from_parts(values, positions)[:, 32 * kstep: 32 * kstep + 32].float()
    return a @ b[32 * kstep: 32 * kstep + 32].float()


def probe_name(dtype, n: int, a_source: str = "regs", a_swizzle: int = 64, b_major: str = "mn",
               b_swizzle: int = 128, sel: int = 0) -> str:
    """Name expression of one probe instantiation."""
    a_smem = {"regs": "false", "smem": "true"}[a_source]
    b_mn = {"k": "false", "mn": "true"}[b_major]
    a_sw = a_swizzle if a_source == "smem" else 0
    return f"vnm::wgmma_sp_probe<{_CTYPE[dtype]}, {n}, {a_smem}, {a_sw}, {b_mn}, {b_swizzle}, {sel}>"


def probe_launch(values: torch.Tensor, positions: torch.Tensor, b: torch.Tensor, *, a_source: str = "regs",
                 a_swizzle: int = 64, b_major: str = "mn", b_swizzle: int = 128, sel: int = 0, kstep: int = 0,
                 meta: torch.Tensor | None = None, others: str = "wrong", a_regs: torch.Tensor | None = None,
                 device=None) -> dict:
    """Everything one probe launch needs, on ``device``: ``name``, ``args`` (in ``PROBE_PARAMS``
    order, the output ``d`` last, NaN-filled, register order [128, N/2]), ``shared_mem``, ``n``.
    Arguments as :func:`run_probe`.
    """
    dtype = values.dtype
    n = b.shape[1]
    if b.shape[0] != 4 * values.shape[1] or b.dtype != dtype:
        raise ValueError("b must be [4G x N] in the dtype of values")
    if not 0 <= kstep < values.shape[1] // GROUPS_PER_KSTEP:
        raise ValueError(f"kstep {kstep} outside the tile's {values.shape[1] // GROUPS_PER_KSTEP} k32 steps")
    a_regs = (a_fragments(values, kstep) if a_regs is None else a_regs).to(device, torch.int32).contiguous()
    if meta is None:
        meta = metadata_words(positions, kstep, sel, others)
    meta = meta.to(device, torch.int32).contiguous()
    if a_source == "smem":
        a_img = a_smem_image(values, a_swizzle)
        a_data, a_bytes, a_lbo, a_sbo, a_koff = (a_img.data.to(device), a_img.nbytes, a_img.lbo, a_img.sbo,
                                                 kstep * a_img.kstep_bytes)
    elif a_source == "regs":
        a_data, a_bytes, a_lbo, a_sbo, a_koff = torch.zeros(8, dtype=dtype, device=device), 0, 0, 0, 0
    else:
        raise ValueError(f"a_source must be 'regs' or 'smem', got {a_source!r}")
    b_img = b_smem_image(b, b_major, b_swizzle)
    d = torch.full((WARPGROUP, n // 2), float("nan"), dtype=torch.float32, device=device)
    args = (a_regs, meta, a_data, a_bytes, a_lbo, a_sbo, a_koff, b_img.data.to(device), b_img.nbytes,
            b_img.lbo, b_img.sbo, kstep * b_img.kstep_bytes, d)
    return {
        "name": probe_name(dtype, n, a_source, a_swizzle, b_major, b_swizzle, sel),
        "args": args,
        "shared_mem": 1024 + math.ceil(b_img.nbytes / 1024) * 1024 + a_bytes,
        "n": n,
    }


def run_probe(values: torch.Tensor, positions: torch.Tensor, b: torch.Tensor, *, raw: bool = False,
              **kwargs) -> torch.Tensor:
    """Run one single-instruction probe on the current CUDA device; returns D [64 x N] fp32.

    ``values``/``positions``: canonical parts of a [64 x G] tile (G = 8, 16 or 32 groups), ``b``:
    the gathered dense B [4G x N] (N = 64, 128, 256), same dtype as values. Keyword arguments:
    ``a_source`` ("regs" or "smem"), ``a_swizzle`` (A image swizzle in bytes), ``b_major`` ("k"
    or "mn"), ``b_swizzle``, ``sel`` (sparsity selector), ``kstep`` (which k32 step of the tile:
    descriptor start-address advance / register groups), ``meta`` (override of the metadata words,
    int32 [128]; default :func:`metadata_words` with ``others`` -- "wrong" by default -- for the
    unselected pair), ``a_regs`` (override of :func:`a_fragments`, int32 [128, 4]).
    The output buffer is NaN-poisoned; ``raw=True`` returns it in register order [128, N/2].
    """
    from vnmsparse.kernels import jit

    launch = probe_launch(values, positions, b, device=torch.device("cuda", torch.cuda.current_device()),
                          **kwargs)
    kernel = jit.get_kernel(PROBE_SOURCE, launch["name"], params=PROBE_PARAMS)
    kernel.launch(1, WARPGROUP, launch["args"], shared_mem=launch["shared_mem"])
    torch.cuda.synchronize()
    d = launch["args"][-1]
    return d if raw else decode_accumulators(d, launch["n"])
