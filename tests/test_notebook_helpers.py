"""The notebooks' shared set-up and finish (bandits.experiments.notebook.start_notebook / finish_notebook)."""
from __future__ import annotations

import json

import pytest

from bandits.experiments.claims import Claim
from bandits.experiments.common import ParameterError
from bandits.experiments.notebook import finish_notebook, start_notebook


def test_start_notebook_validates_then_creates_the_folder(tmp_path):
    out = tmp_path / "nb"
    got = start_notebook(mode="quick", seed=0, n_jobs=1, backend="serial", out=str(out))
    assert got == out and out.is_dir()
    with pytest.raises(ParameterError, match="'mode'"):
        start_notebook(mode="fast", seed=0, n_jobs=1, backend="serial", out=str(out))
    (tmp_path / "file").write_text("x")
    with pytest.raises(ParameterError, match="'out'"):
        start_notebook(mode="quick", seed=0, n_jobs=1, backend="serial", out=str(tmp_path / "file"))


def test_finish_notebook_writes_claims_provenance_and_prints_the_table(tmp_path, capsys):
    claims = [Claim("c1", "A beats B", "A − B < 0", "1 vs 2", True, quote="verbatim", source="§5")]
    finish_notebook(claims, {"T": 10}, seed=3, out_dir=tmp_path, notebook="x.ipynb", mode="quick", n_jobs=1,
                    backend="serial", about={"paper": "X", "figure": "1"})
    text = capsys.readouterr().out
    assert text.startswith("[PASS] c1") and "paper claims: 1 PASS" in text
    c = json.loads((tmp_path / "claims.json").read_text())
    assert c["paper"] == "X" and c["mode"] == "quick" and c["claims"][0]["kind"] == "paper"
    p = json.loads((tmp_path / "provenance.json").read_text())
    assert p["seed"] == 3 and p["notebook"] == "x.ipynb" and p["parameters"] == {"T": 10}
    # the machine the runs were timed on: its processor and its rates, measured as the notebook finished
    m = p["machine"]
    assert m["cpu"] and m["cores"] >= 1 and m["kind"].startswith(m["cpu"] + " (")
    assert m["rates"]["gemm_small_gflops"] > 0 and m["rates"]["call_numpy_us"] > 0


def test_cpu_identity_tells_apart_processors_of_one_name(monkeypatch, tmp_path):
    # "AMD EPYC" names Zen 3 and Zen 4 alike: the family and model numbers, the widest vector extension and the
    # cores are read beside the name (from the first processor of /proc/cpuinfo)
    import builtins

    from bandits.bench import cpu_identity, cpu_words

    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
                    "model name\t: AMD EPYC\ncpu MHz\t\t: 3700.0\nflags\t\t: fpu sse4_2 avx avx2 avx512f\n\n"
                    "processor\t: 1\nmodel name\t: other\n")
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda f, *a, **k: real_open(info if f == "/proc/cpuinfo" else f, *a, **k))
    ident = cpu_identity()
    assert (ident["cpu"], ident["family"], ident["model"], ident["mhz"], ident["isa"]) == ("AMD EPYC", 25, 17, 3700,
                                                                                           "avx512f")
    assert cpu_words(ident).startswith("AMD EPYC (family 25, model 17, avx512f, ")


def test_unpair_reencodes_embedded_pngs_smaller(tmp_path):
    """tools/nbtools.py unpair: the jupytext metadata removed and an embedded matplotlib PNG re-encoded with a
    palette, smaller and still a PNG of the same size."""
    import base64
    import io
    import json
    import sys
    from pathlib import Path

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from PIL import Image

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import nbtools

    fig, ax = plt.subplots()
    for k in range(8):
        ax.plot(range(50), [k * i ** 0.5 for i in range(50)], marker="o")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=150)
    plt.close(fig)
    png = base64.b64encode(buf.getvalue()).decode()
    nb = {"cells": [{"cell_type": "code", "source": "", "metadata": {}, "execution_count": 1,
                     "outputs": [{"output_type": "display_data", "metadata": {}, "data": {"image/png": png}}]}],
          "metadata": {"jupytext": {"formats": "ipynb,py"}}, "nbformat": 4, "nbformat_minor": 5}
    p = tmp_path / "nb.ipynb"
    p.write_text(json.dumps(nb))
    nbtools.unpair([p])
    out = json.loads(p.read_text())
    new = out["cells"][0]["outputs"][0]["data"]["image/png"]
    assert "jupytext" not in out["metadata"] and len(new) < len(png)
    assert Image.open(io.BytesIO(base64.b64decode(new))).size == Image.open(buf).size
