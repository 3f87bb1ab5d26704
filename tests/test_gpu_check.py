"""``tools/gpu_check.py`` (the device check of the CUDA paths) stays importable and says so without a GPU."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")


def _load():
    path = Path(__file__).resolve().parents[1] / "tools" / "gpu_check.py"
    spec = importlib.util.spec_from_file_location("gpu_check", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present: run the script itself")
def test_without_a_gpu_it_exits_1_and_writes_nothing(tmp_path, capsys):
    assert _load().main(tmp_path / "out") == 1
    assert "no CUDA device" in capsys.readouterr().out
    assert not (tmp_path / "out" / "gpu_check.json").exists()
