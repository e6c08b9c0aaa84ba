"""Tests of vnmsparse.save / load: round trips, and damaged or hostile files.

Every damaged file must give a ValueError (never a returned tensor), and a failing save must
leave an existing file untouched.
"""

import json
import os
import struct
import tempfile

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from safetensors.torch import load_file, save_file

import vnmsparse as vs
from vnmsparse import VNMConfig
from vnmsparse.serialization import FORMAT, read_metadata

INT_VIEW = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32}


def random_weight(r, k, spec, dtype=torch.bfloat16, seed=0):
    g = torch.Generator().manual_seed(seed)
    d = torch.randn(r, k, generator=g)
    return vs.pack(torch.where(vs.vnm_mask(d.abs(), spec), d, 0.0).to(dtype), spec)


def same_weight(a: vs.VNMWeight, b: vs.VNMWeight):
    assert isinstance(b, vs.VNMWeight)
    assert a.shape == b.shape and a.cfg == b.cfg and a.dtype == b.dtype
    assert set(a.parts()) == set(b.parts())
    for name, t in a.parts().items():
        u = b.parts()[name]
        assert t.dtype == u.dtype and t.shape == u.shape
        if t.dtype in INT_VIEW:
            assert torch.equal(t.view(INT_VIEW[t.dtype]), u.view(INT_VIEW[t.dtype]))
        else:
            assert torch.equal(t, u)
    assert torch.equal(vs.unpack(a).view(INT_VIEW[a.dtype]), vs.unpack(b).view(INT_VIEW[a.dtype]))


WEIGHTS = {
    "plain_2to4": ("2:4", (33, 18), torch.float16),
    "w_64_2_8": ("64:2:8", (130, 64), torch.bfloat16),
    "ragged": ("16:2:8", (17, 21), torch.float32),  # ragged rows, odd group count, tail of 5
    "narrow_tail": ("32:2:10", (40, 22), torch.bfloat16),  # tail group of 2 columns
    "wide": ("128:2:130", (129, 140), torch.float16),
    "tiny": ("16:2:5", (1, 1), torch.bfloat16),
}


@pytest.fixture
def bundle():
    out = {name: random_weight(*shape, spec, dtype) for name, (spec, shape, dtype) in WEIGHTS.items()}
    out.update(
        {
            "bias": torch.randn(130),
            "bf16": torch.randn(3, 4).bfloat16(),
            "ints": torch.arange(10, dtype=torch.int64),
            "mask": torch.rand(5, 5) > 0.5,
            "scalar": torch.tensor(3.5),
            "empty": torch.zeros(0, 3),
            "empty_w": random_weight(0, 10, "16:2:8"),
            "nested.name.values": torch.ones(2),  # looks like a part, belongs to no weight
        }
    )
    return out


def test_round_trip(tmp_path, bundle):
    path = tmp_path / "model.safetensors"
    meta = {"model": "test", "step": "12", "unicode": "µ-😀"}
    vs.save(path, bundle, meta)
    loaded = vs.load(path)
    assert set(loaded) == set(bundle)
    for name, item in bundle.items():
        if isinstance(item, vs.VNMWeight):
            same_weight(item, loaded[name])
        else:
            assert isinstance(loaded[name], torch.Tensor) and loaded[name].dtype == item.dtype
            assert torch.equal(loaded[name], item)
    assert read_metadata(path) == meta
    assert vs.load(str(path), device="cpu").keys() == loaded.keys()  # str path, explicit device
    # a loaded weight runs
    x = torch.randn(4, 64).bfloat16()
    assert torch.equal(vs.spmm(x, loaded["w_64_2_8"]), vs.spmm(x, bundle["w_64_2_8"]))


@settings(max_examples=2 * settings().max_examples)
@given(
    spec=st.sampled_from(["2:4", "16:2:4", "16:2:5", "16:2:8", "32:2:16", "64:2:19", "16:2:20", "128:2:130"]),
    r=st.integers(0, 140),
    k=st.integers(0, 300),
    dtype=st.sampled_from([torch.float16, torch.bfloat16, torch.float32]),
    seed=st.integers(0, 2**31 - 1),
)
def test_round_trip_property(spec, r, k, dtype, seed):
    vw = random_weight(r, k, spec, dtype, seed)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "w.safetensors")
        vs.save(path, {"w": vw, "x": torch.ones(1)}, {"seed": str(seed)})
        loaded = vs.load(path)
        assert read_metadata(path) == {"seed": str(seed)}
    same_weight(vw, loaded["w"])


def test_round_trip_overwrites_and_no_temp_files_left(tmp_path):
    path = tmp_path / "w.safetensors"
    vs.save(path, {"a": random_weight(16, 8, "16:2:8")})
    vs.save(path, {"b": torch.zeros(2)})
    assert set(vs.load(path)) == {"b"}
    assert read_metadata(path) == {}
    assert os.listdir(tmp_path) == ["w.safetensors"]


def test_file_layout_is_plain_safetensors(tmp_path):
    """The parts are ordinary tensors named name.part; metadata names the format."""
    path = tmp_path / "w.safetensors"
    vw = random_weight(20, 13, "16:2:8")
    vs.save(path, {"w": vw, "plain": random_weight(16, 8, "2:4")})
    raw = load_file(path)
    assert set(raw) == {"w.values", "w.positions", "w.columns", "plain.values", "plain.positions"}
    assert torch.equal(raw["w.positions"], vw.positions)
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    info = json.loads(header["__metadata__"]["vnmsparse"])
    assert info["format"] == FORMAT
    assert info["weights"]["w"] == {"cfg": "16:2:8", "shape": [20, 13], "dtype": "bfloat16"}
    assert info["weights"]["plain"]["cfg"] == "64:2:4"


def test_save_errors(tmp_path):
    path = tmp_path / "x.safetensors"
    vw = random_weight(16, 8, "16:2:8")
    with pytest.raises(TypeError, match="dict"):
        vs.save(path, [torch.zeros(1)])
    with pytest.raises(TypeError, match="non-empty strings"):
        vs.save(path, {1: torch.zeros(1)})
    with pytest.raises(TypeError, match="non-empty strings"):
        vs.save(path, {"": torch.zeros(1)})
    with pytest.raises(TypeError, match="only tensors and VNMWeights"):
        vs.save(path, {"a": [1, 2]})
    with pytest.raises(ValueError, match="collides"):
        vs.save(path, {"w": vw, "w.columns": torch.zeros(1)})
    with pytest.raises(ValueError, match="reserved"):
        vs.save(path, {"w": vw}, {"vnmsparse": "x"})
    with pytest.raises(FileNotFoundError):
        vs.save(tmp_path / "no" / "such" / "dir.safetensors", {"w": vw})
    assert not path.exists()


# --------------------------------------------------------------------------------- atomic save


def test_failing_save_leaves_existing_file_untouched(tmp_path, monkeypatch):
    path = tmp_path / "w.safetensors"
    vs.save(path, {"w": random_weight(20, 13, "16:2:8")}, {"version": "1"})
    before = path.read_bytes()
    # 1. rejected before anything is written
    with pytest.raises(TypeError):
        vs.save(path, {"w": "not a tensor"})
    # 2. safetensors itself refuses (two names for one storage)
    shared = torch.zeros(4)
    with pytest.raises(Exception):
        vs.save(path, {"a": shared, "b": shared})
    # 3. the writer dies half-way through the file (disk full, kill, ...)
    import safetensors.torch

    def dying_save_file(tensors, filename, metadata=None):
        with open(filename, "wb") as f:
            f.write(b"partial garbage")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(safetensors.torch, "save_file", dying_save_file)
    with pytest.raises(OSError, match="No space"):
        vs.save(path, {"w": random_weight(20, 13, "16:2:8", seed=1)})
    with pytest.raises(KeyboardInterrupt):
        monkeypatch.setattr(safetensors.torch, "save_file", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt()))
        vs.save(path, {"x": torch.zeros(1)})
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["w.safetensors"], "temporary files must be removed"
    monkeypatch.undo()
    assert read_metadata(path) == {"version": "1"}


# ----------------------------------------------------------------------------- damaged files


def write_raw(path, tensors: dict, weights: dict | str | None, extra_meta=None):
    """A safetensors file with the given tensors and a hand-written vnmsparse metadata entry."""
    meta = dict(extra_meta or {})
    if weights is not None:
        meta["vnmsparse"] = weights if isinstance(weights, str) else json.dumps({"format": FORMAT, "weights": weights})
    save_file({k: v.contiguous() for k, v in tensors.items()}, str(path), metadata=meta)


def parts_of(vw, name="w"):
    return {f"{name}.{p}": t.clone() for p, t in vw.parts().items()}


def desc_of(vw):
    return {"cfg": str(vw.cfg), "shape": list(vw.shape), "dtype": str(vw.dtype).replace("torch.", "")}


def _set(key, index, value):
    def change(parts, desc):
        parts[key][index] = value

    return change


def _replace(key, fn):
    def change(parts, desc):
        parts[key] = fn(parts[key])

    return change


def _desc(**updates):
    def change(parts, desc):
        desc.update(updates)

    return change


def _drop(key):
    def change(parts, desc):
        del parts[key]

    return change


DAMAGE = {
    # columns
    "column out of range": (_set("w.columns", (1, 0, 3), 8), "out of range"),
    "column 255": (_set("w.columns", (0, 1, 3), 255), "out of range"),
    "columns not increasing": (_set("w.columns", (0, 0, 2), 0), "strictly increasing"),
    "columns repeated": (_replace("w.columns", lambda c: torch.zeros_like(c)), "strictly increasing"),
    "tail column beyond K": (_set("w.columns", (0, 1), torch.tensor([1, 2, 5, 6], dtype=torch.uint8)), "column >= K"),
    # positions
    "bad positions code 0": (_set("w.positions", (3, 0), 0), "invalid 2:4 code"),
    "positions p0 > p1": (_set("w.positions", (0, 0), 1 | 0 << 2), "invalid 2:4 code"),
    "positions p0 == p1": (_set("w.positions", (19, 0), 0xF0 | 3 | 3 << 2), "invalid 2:4 code"),
    "high nibble set": (_set("w.positions", (0, 1), 0x40 | 4), "high nibble"),
    # shapes and dtypes
    "values wrong shape": (_replace("w.values", lambda t: t[:, :1]), "values must have shape"),
    "values wrong dtype": (_replace("w.values", lambda t: t.float()), "values dtype"),
    "values int dtype": (_replace("w.values", lambda t: t.view(torch.int16)), "dtype"),
    "positions wrong shape": (_replace("w.positions", lambda t: t[:-1]), "positions must have shape"),
    "positions wrong dtype": (_replace("w.positions", lambda t: t.to(torch.int16)), "positions must be torch.uint8"),
    "columns wrong shape": (_replace("w.columns", lambda t: t[:, :, :3]), "columns must have shape"),
    "columns wrong dtype": (_replace("w.columns", lambda t: t.to(torch.int32)), "columns must be torch.uint8"),
    "values nonzero beyond K": (None, "column >= K"),  # built below
    # missing parts
    "missing values": (_drop("w.values"), "missing 'w.values'"),
    "missing positions": (_drop("w.positions"), "missing 'w.positions'"),
    "missing columns": (_drop("w.columns"), "columns is missing"),
    # descriptions
    "recorded dtype differs": (_desc(dtype="float16"), "differs from the recorded"),
    "recorded shape differs": (_desc(shape=[20, 17]), "must have shape"),
    "shape of three dims": (_desc(shape=[20, 13, 1]), "shape"),
    "shape not a list": (_desc(shape=7), "bad description"),
    "shape with text": (_desc(shape=["a", 3]), "bad description"),
    "negative shape": (_desc(shape=[-20, 13]), "shape"),
    "bad cfg": (_desc(cfg="64:2:3"), "bad description"),
    "cfg not text": (_desc(cfg=8), "bad description"),
    "cfg of another weight": (_desc(cfg="32:2:8"), "must have shape"),
    "no cfg": (lambda parts, desc: desc.pop("cfg"), "missing 'cfg'"),
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_damaged_weight_is_rejected(tmp_path, case):
    vw = random_weight(20, 13, "16:2:8")  # G = 2, tail group of 5 columns, ragged rows
    assert vw.positions.shape == (20, 1)
    parts, desc = parts_of(vw), desc_of(vw)
    change, match = DAMAGE[case]
    if case == "high nibble set":
        vw = random_weight(20, 21, "16:2:8")  # G = 3: the last byte's high nibble is unused
        parts, desc = parts_of(vw), desc_of(vw)
    if case == "values nonzero beyond K":
        vw = random_weight(20, 10, "2:4")  # tail group of 2 columns: slots 2, 3 lie beyond K
        parts, desc = parts_of(vw), desc_of(vw)
        parts["w.positions"][0, 1] = (parts["w.positions"][0, 1] & 0xF0) | 2 | 3 << 2
        parts["w.values"][0, 2] = 1.0
    else:
        change(parts, desc)
    path = tmp_path / "bad.safetensors"
    write_raw(path, {**parts, "other": torch.ones(3)}, {"w": desc})
    with pytest.raises(ValueError, match=match):
        vs.load(path)


def test_undamaged_raw_file_loads(tmp_path):
    """The write_raw helper itself produces loadable files (so the rejections above are real)."""
    vw = random_weight(20, 13, "16:2:8")
    path = tmp_path / "ok.safetensors"
    write_raw(path, {**parts_of(vw), "other": torch.ones(3)}, {"w": desc_of(vw)})
    loaded = vs.load(path)
    same_weight(vw, loaded["w"])
    assert torch.equal(loaded["other"], torch.ones(3))


def test_2to4_with_columns_is_rejected(tmp_path):
    vw = random_weight(20, 12, "2:4")
    path = tmp_path / "bad.safetensors"
    write_raw(path, {**parts_of(vw), "w.columns": torch.zeros(1, 3, 4, dtype=torch.uint8)}, {"w": desc_of(vw)})
    with pytest.raises(ValueError, match="must be None"):
        vs.load(path)


def test_name_both_tensor_and_weight_is_rejected(tmp_path):
    vw = random_weight(20, 12, "2:4")
    path = tmp_path / "bad.safetensors"
    write_raw(path, {**parts_of(vw), "w": torch.ones(2)}, {"w": desc_of(vw)})
    with pytest.raises(ValueError, match="both a plain tensor and a VNMWeight"):
        vs.load(path)


@pytest.mark.parametrize(
    "metadata, match",
    [
        ("{not json", "corrupt vnmsparse metadata"),
        ('{"format": "vnmsparse/1", "weights": {"w": ', "corrupt vnmsparse metadata"),
        ("[1, 2]", "format"),
        ('"vnmsparse/1"', "format"),
        ('{"format": "vnmsparse/2", "weights": {}}', "format 'vnmsparse/2'"),
        ('{"weights": {}}', "format None"),
        ('{"format": "vnmsparse/1"}', "no 'weights' table"),
        ('{"format": "vnmsparse/1", "weights": [1]}', "no 'weights' table"),
        ('{"format": "vnmsparse/1", "weights": {"w": "64:2:8"}}', "bad description"),
        ('{"format": "vnmsparse/1", "weights": {"w": null}}', "bad description"),
        ('{"format": "vnmsparse/1", "weights": {"nope": {"cfg": "2:4", "shape": [4, 4], "dtype": "float16"}}}', "missing 'nope.values'"),
    ],
)
def test_corrupt_metadata_is_rejected(tmp_path, metadata, match):
    vw = random_weight(20, 13, "16:2:8")
    path = tmp_path / "bad.safetensors"
    write_raw(path, parts_of(vw), metadata)
    with pytest.raises(ValueError, match=match):
        vs.load(path)


def test_non_vnmsparse_file_is_rejected(tmp_path):
    path = tmp_path / "plain.safetensors"
    save_file({"a": torch.zeros(3)}, str(path))
    with pytest.raises(ValueError, match="not written by vnmsparse.save"):
        vs.load(path)
    write_raw(path, {"a": torch.zeros(3)}, None, {"format": "pt"})
    with pytest.raises(ValueError, match="not written by vnmsparse.save"):
        vs.load(path)
    with pytest.raises(ValueError, match="not written by vnmsparse.save"):
        read_metadata(path)


@pytest.mark.parametrize("content", [b"", b"\x00" * 7, b"hello world, not safetensors", os.urandom(300), b"PK\x03\x04" + b"\x00" * 100])
def test_garbage_file_is_rejected(tmp_path, content):
    path = tmp_path / "garbage.safetensors"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="not a readable safetensors file"):
        vs.load(path)


def test_truncated_file_is_rejected(tmp_path):
    path = tmp_path / "w.safetensors"
    vs.save(path, {"w": random_weight(40, 30, "16:2:8"), "b": torch.randn(40)})
    data = path.read_bytes()
    (header_len,) = struct.unpack("<Q", data[:8])
    cuts = {0, 1, 7, 8, 9, 8 + header_len // 2, 8 + header_len - 1, 8 + header_len, 8 + header_len + 1, len(data) - 1}
    cuts |= set(range(8 + header_len, len(data), max(1, (len(data) - header_len) // 17)))
    bad = tmp_path / "cut.safetensors"
    for cut in sorted(cuts):
        assert cut < len(data)
        bad.write_bytes(data[:cut])
        with pytest.raises(ValueError):
            vs.load(bad)
    bad.write_bytes(data + b"\x00")  # trailing bytes are damage too
    with pytest.raises(ValueError):
        vs.load(bad)


def test_flipped_positions_byte_is_rejected_or_still_valid(tmp_path):
    """A bit flip in the positions either keeps a valid code or is caught; never a crash."""
    vw = random_weight(20, 13, "16:2:8")
    path = tmp_path / "w.safetensors"
    vs.save(path, {"w": vw})
    data = bytearray(path.read_bytes())
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_len])
    start, end = header["w.positions"]["data_offsets"]
    outcomes = set()
    for i in range(start, end):
        for bit in range(8):
            damaged = bytearray(data)
            damaged[8 + header_len + i] ^= 1 << bit
            path.write_bytes(bytes(damaged))
            try:
                loaded = vs.load(path)["w"]
                vs.unpack(loaded)  # valid parts: unpacks fine
                outcomes.add("valid")
            except ValueError as e:
                assert "invalid 2:4 code" in str(e)
                outcomes.add("rejected")
    assert outcomes == {"valid", "rejected"}


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        vs.load(tmp_path / "nope.safetensors")


@pytest.mark.gpu
def test_load_to_gpu(tmp_path):
    path = tmp_path / "w.safetensors"
    vw = random_weight(20, 13, "16:2:8")
    vs.save(path, {"w": vw.cuda(), "b": torch.ones(2, device="cuda")})
    loaded = vs.load(path, device="cuda")
    assert loaded["w"].device.type == "cuda" and loaded["b"].is_cuda
    same_weight(vw, loaded["w"].cpu())
