"""Tests of the ``vnmsparse`` command (run in-process through vnmsparse.cli.main) and of the
README's promise that CI runs exactly the documented test command."""

import re
import shlex
import sys
from pathlib import Path

import pytest

from vnmsparse import cli

ROOT = Path(__file__).resolve().parents[1]
SUBCOMMANDS = ("env", "check", "cache", "bench")


def run(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def test_help_lists_subcommands(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: vnmsparse")
    for sub in SUBCOMMANDS:
        assert re.search(rf"^\s+{sub}\s", out, re.M), f"{sub} missing from --help:\n{out}"


def test_no_arguments_prints_help(capsys):
    code, out = run(capsys)
    assert code == 0 and "usage: vnmsparse" in out and "check" in out


def test_check_help(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["check", "--help"])
    assert e.value.code == 0
    assert "--vnm" in capsys.readouterr().out


def test_env(capsys):
    import torch

    import vnmsparse

    code, out = run(capsys, "env")
    assert code == 0
    assert f"vnmsparse {vnmsparse.__version__}" in out
    assert "torch" in out and torch.__version__ in out
    assert "compute paths:" in out and "[x] reference (PyTorch, any device)" in out
    if not torch.cuda.is_available():
        assert "no CUDA device" in out


def test_check_default(capsys):
    code, out = run(capsys, "check")
    assert code == 0, out
    assert out.rstrip().endswith("OK")
    assert "save/load/unpack bitwise exact: True" in out
    assert "weight 1000x1000 64:2:8" in out


@pytest.mark.parametrize("argv", [["--vnm", "2:4"], ["--vnm", "16:2:13", "--rows", "33", "--cols", "29", "--tokens", "1"]])
def test_check_patterns(capsys, argv):
    code, out = run(capsys, "check", *argv)
    assert code == 0, out
    assert out.rstrip().endswith("OK")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--vnm", "64:2:3"], "m >= 4"),
        (["--vnm", "8:2:8"], "multiple of 16"),
        (["--vnm", "64:2"], "three fields"),
        (["--rows", "0"], "positive integer"),
        (["--cols", "-3"], "positive integer"),
        (["--tokens", "x"], "invalid"),
    ],
)
def test_check_bad_arguments_are_usage_errors(capsys, argv, message):
    with pytest.raises(SystemExit) as e:
        cli.main(["check", *argv])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "usage: vnmsparse check" in err and message in err, err


def test_unknown_arguments_exit_2(capsys):
    for argv in (["nope"], ["env", "--bogus"], ["check", "--rows", "x"]):
        with pytest.raises(SystemExit) as e:
            cli.main(argv)
        assert e.value.code == 2, argv
    capsys.readouterr()


def test_console_script_entry_point():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["vnmsparse"] == "vnmsparse.cli:main"


def test_module_runs_as_script():
    import subprocess

    out = subprocess.run([sys.executable, "-m", "vnmsparse.cli", "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "usage: vnmsparse" in out.stdout


# ------------------------------------------------------------------------------ CI == README


def readme_test_command() -> str:
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```(?:bash|sh|console)?\n(.*?)```", readme, re.S)
    commands = [line.strip() for b in blocks for line in b.splitlines() if "pytest" in line]
    assert len(commands) == 1, f"expected one test command in README.md, found {commands}"
    return commands[0]


def ci_test_command() -> str:
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    commands = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    commands = [c for c in commands if not c.startswith(("set ", "cd "))]
    assert len(commands) == 1, f"expected one command in .ci/run besides set/cd, found {commands}"
    return commands[0]


def test_ci_runs_exactly_the_readme_test_command():
    readme, ci = readme_test_command(), ci_test_command()
    assert shlex.split(ci) == shlex.split(readme), f"\nREADME: {readme}\n.ci/run: {ci}"


def test_ci_script_runs_from_repository_root():
    text = (ROOT / ".ci" / "run").read_text()
    assert text.startswith("#!/usr/bin/env bash")
    assert "set -euo pipefail" in text and 'cd "$(dirname "$0")/.."' in text


def test_cache_clear_also_forgets_autotune_choices(tmp_path, monkeypatch, capsys):
    from vnmsparse.kernels import autotune

    monkeypatch.setenv("VNM_CACHE_DIR", str(tmp_path))
    (tmp_path / autotune.FILE).write_text('{"k": "x"}')
    assert cli.main(["cache", "clear"]) == 0
    assert "autotune choices" in capsys.readouterr().out and not (tmp_path / autotune.FILE).exists()
    assert cli.main(["cache", "clear"]) == 0
    assert "autotune" not in capsys.readouterr().out


def test_cache_warm_with_a_knob_compiles_the_matching_variants(tmp_path, monkeypatch, capsys):
    """`cache warm --define NAME=INT --match TEXT`: the A/B runs' knob variants, compiled ahead in parallel (what a
    kernel launched with that DEFINES entry then finds in the cache)."""
    from vnmsparse.kernels import jit, spmm_mma_sp

    monkeypatch.setenv("VNM_CACHE_DIR", str(tmp_path))
    name = "vnm::spmm_mma_sp_ws<__half, 64, 256, 64, 64, 5, 4, true>"  # (an sm_80 variant)
    argv = ["cache", "warm", "--arch", "sm_80", "--jobs", "1", "--match", name, "--define", "VNM_MMA_WS_LOOKAHEAD=2"]
    assert cli.main(argv) == 0
    assert "compiled 1 kernels for sm_80 with {'VNM_MMA_WS_LOOKAHEAD': 2}" in capsys.readouterr().out
    entries = jit.cache_entries()
    assert len(entries) == 1
    # the same key as the launch path's compile of that variant with the knob: no second entry
    jit.compile(spmm_mma_sp.SOURCE, [name], "sm_80", defines={"VNM_MMA_WS_LOOKAHEAD": 2})
    assert len(jit.cache_entries()) == 1


@pytest.mark.parametrize("bad", ["VNM_X", "VNM_X=a", "1X=2", "=3"])
def test_cache_warm_bad_define_is_a_usage_error(capsys, bad):
    with pytest.raises(SystemExit) as e:
        cli.main(["cache", "warm", "--define", bad])
    assert e.value.code == 2
    assert "--define takes NAME=INT" in capsys.readouterr().err


def test_cache_warm_match_of_nothing_is_an_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("VNM_CACHE_DIR", str(tmp_path))
    assert cli.main(["cache", "warm", "--arch", "sm_80", "--match", "no_such_kernel"]) == 1
    assert "no kernel variant for sm_80 has a name containing 'no_such_kernel'" in capsys.readouterr().err
