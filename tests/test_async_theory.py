"""Async-KernelUCB theory checks (C1, C4–C7): tiny runs, tables, claims, helpers, validation."""
import math

import numpy as np
import pytest

from bandits.algorithms.async_kernel_ucb import effective_dimension
from bandits.estimators import information_gain
from bandits.experiments import async_theory as at
from bandits.experiments.async_theory import claims as at_claims, plots as at_plots
from bandits.experiments.async_theory import maths as at_maths, runs as at_runs, setting as at_setting
from bandits.experiments.claims import Claim
from bandits.experiments.common import ParameterError
from bandits.kernels import make_kernel

TINY = dict(N=5, T=200, n_runs=1, c1_q=[0.5, 2.0], c1_D=[1.0], c4_D=[at.INV_N2, 1.0, 10.0], c5_q=[1.0],
            c5_D=[0.3, 3.0], c5_approx_D=[1.0], references=False, c6_N=[2, 4], c6_T=100, c6_D=[at.INV_N2],
            c7_T=[50, 100], c7_D=[at.INV_N2])


@pytest.fixture(scope="module")
def tiny():
    p = at.theory_params("quick", **TINY)
    return at.run_theory(p, seed=0, n_jobs=1, backend="serial", progress=False)


def test_tables_have_the_expected_columns(tiny):
    need = {
        "c1": {"q", "D", "rep", "dict_size", "size_bound", "gamma_hat", "d_eff", "expected_size", "S_over_deff",
               "B", "R_T", "C_T"},
        "c1_curves": {"q", "D", "rep", "t", "dict_size"},
        "c4": {"D", "D_label", "rep", "B", "B_bound", "max_per_epoch", "epoch_bound", "n_epochs", "C_T", "C_bound",
               "gamma_hat"},
        "c4_epochs": {"D", "rep", "epoch", "count", "bound"},
        "c5": {"method", "q", "D", "c", "rep", "R_T", "C_T", "B", "dict_size"},
        "c6": {"N", "D", "D_label", "rep", "B", "C_T", "R_T"},
        "c7": {"method", "T", "D_label", "rep", "R_T"},
    }
    frames = tiny.frames()
    for name, cols in need.items():
        assert name in frames, name
        assert cols <= set(frames[name].columns), (name, cols - set(frames[name].columns))
        assert len(frames[name]) > 0
    assert len(tiny.c1) == 2 and len(tiny.c4) == 3
    assert set(tiny.c5.method) == {at.ASYNC, at.APPROX}
    assert set(tiny.c7.method) == {at.ASYNC, at.NK}
    # D = 1/N² is resolved per N; every step then triggers an exchange with the prior σ̃² = 1 > D
    c4 = tiny.c4.set_index("D_label")
    assert c4.loc[at.INV_N2, "D"] == pytest.approx(1 / 25)
    assert c4.loc[at.INV_N2, "n_uploaded"] == 200
    assert (tiny.c4.n_uploaded <= 200).all()
    assert (tiny.c1.dict_size <= tiny.c1.n_uploaded).all()


def test_claims_ids_and_types(tiny):
    claims = at_claims.theory_claims(tiny)
    ids = [c.id for c in claims]
    for cid in ("C1-size-bound", "C1-grows-with-q", "C1-expectation", "C4-B-decreasing", "C4-B-bound",
                "C4-epoch-bound", "C4-comm-decreasing", "C4-comm-bound", "C5-tradeoff", "C6-B-slope",
                "C6-regret-flat", "C7-sublinear", "C7-vs-NKernelUCB"):
        assert cid in ids
    for c in claims:
        assert isinstance(c, Claim)
        assert isinstance(c.passed, bool)
        assert isinstance(c.value, str) and c.value
        assert c.source  # every claim names where the paper makes it
    kind = {c.id: c.kind for c in claims}
    assert kind["C6-B-slope"] == kind["C1-size-bound"] == kind["C4-B-bound"] == "implementation"
    assert kind["C5-tradeoff"] == kind["C7-sublinear"] == "paper"
    c5 = next(c for c in claims if c.id == "C5-tradeoff")
    assert c5.quote == "verbatim" and c5.source == "§5.2" and "variance-sum" in c5.check


def test_c5_runs_approx_with_figure2_trigger():
    """C5's Approx-DisKernelUCB uses Figure 2's variance-sum trigger, its D from c5_approx_D."""
    p = at.theory_params("quick", **TINY)
    cfgs = [cfg for lab, cfg in at_runs._tasks(p, ["C5"]) if lab["method"] == at.APPROX]
    assert cfgs and all(c["params"]["trigger"] == "var_sum" and c["params"]["D"] == 1.0 for c in cfgs)


def test_plots_return_figures(tiny):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for f in (at_plots.plot_c1, at_plots.plot_c4, at_plots.plot_c5, at_plots.plot_scaling):
        fig = f(tiny)
        assert hasattr(fig, "savefig")
        plt.close(fig)


def test_check_functions_and_cache_agree(tmp_path):
    p = at.theory_params("quick", **dict(TINY, T=120, c4_D=[1.0], c1_q=[1.0]))
    a = at.c4_communications(p, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    b = at.c4_communications(p, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)  # from cache
    assert list(a.columns) == list(b.columns)
    np.testing.assert_allclose(a[["B", "R_T", "C_T", "gamma_hat", "d_eff"]].values,
                               b[["B", "R_T", "C_T", "gamma_hat", "d_eff"]].values)
    c1 = at.c1_dictionary(p, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    assert list(c1.q) == [1.0]
    # the same run (same config, seed, rep) gives the same numbers from either check
    assert c1.B.iloc[0] == a.B.iloc[0] and c1.R_T.iloc[0] == a.R_T.iloc[0]


def test_upload_order_by_hand():
    # steps 0..6, clients 0,1,0,0,1,0,1; exchanges: client 0 at t=2, client 1 at t=4, client 0 at t=5
    clients = np.array([0, 1, 0, 0, 1, 0, 1])
    steps = np.arange(7)
    order, n_k = at.upload_order(clients, steps, [2, 4, 5], [0, 1, 0])
    assert order.tolist() == [0, 2, 1, 4, 3, 5]
    assert n_k.tolist() == [2, 4, 6]


def test_uploaded_statistics_match_the_helpers():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)) * 0.5
    k = make_kernel({"name": "rbf", "gamma": 1.0})
    lam = 0.7
    st = at.uploaded_statistics(k, X, np.array([10, 35, 60]), lam)
    K = k(X)
    assert st["gamma_hat"] == pytest.approx(information_gain(K, lam), rel=1e-10)
    assert st["d_eff"] == pytest.approx(effective_dimension(K, lam), rel=1e-9)
    for n, ld in zip((10, 35, 60), st["logdet_k"]):
        assert ld == pytest.approx(2 * information_gain(K[:n, :n], lam), rel=1e-10)
    # epochs: exchange k lies in epoch floor(log2 det) of the data *before* it
    ep = at.det_epochs(np.array([0.5, 1.0, 2.0, 2.1]))
    assert ep.tolist() == [0, 0, 1, 2]


def test_theory_env_is_seeded_and_in_the_unit_ball():
    spec = {"name": "f1", "d": 5, "K": 20, "noise_std": 0.1}
    e1, e2, e3 = at.make_theory_env(spec, 0), at.make_theory_env(spec, 0), at.make_theory_env(spec, 1)
    assert e1.dim == 5
    np.testing.assert_array_equal(e1.info["theta"], e2.info["theta"])
    assert not np.allclose(e1.info["theta"], e3.info["theta"])
    agents, arms, means = e1.round(0, 4, np.random.default_rng(0))
    X = arms.for_agent(0)
    assert X.shape == (20, 5) and np.all(np.linalg.norm(X, axis=1) <= 1 + 1e-12)
    np.testing.assert_allclose(means[0], np.cos(3 * X @ e1.info["theta"]))


def test_resolve_D():
    assert at.resolve_D(at.INV_N2, 20) == pytest.approx(1 / 400)
    assert at.resolve_D(3, 20) == 3.0


def test_c5_matching_rule():
    import pandas as pd

    rows = [
        {"method": at.APPROX, "q": 1.0, "D": 5.0, "D_label": "", "c": 1.0, "rep": 0, "R_T": 100.0, "C_T": 1e6,
         "B": 10, "dict_size": 50},
        {"method": at.ASYNC, "q": 1.0, "D": 1.0, "D_label": "1", "c": np.nan, "rep": 0, "R_T": 115.0, "C_T": 2e5,
         "B": 10, "dict_size": 50},
        {"method": at.ASYNC, "q": 1.0, "D": 10.0, "D_label": "10", "c": np.nan, "rep": 0, "R_T": 130.0, "C_T": 1e4,
         "B": 10, "dict_size": 50},
    ]
    m = at_claims.c5_matches(pd.DataFrame(rows))
    assert len(m) == 1 and m.async_D.iloc[0] == 1.0  # D=10 is cheaper but not within 1.2 × regret
    assert m.ratio.iloc[0] == pytest.approx(0.2)


@pytest.mark.parametrize("override, name", [
    ({"N": 0}, "N"),
    ({"T": 1.5}, "T"),
    ({"n_runs": 0}, "n_runs"),
    ({"lam": -1.0}, "lam"),
    ({"gamma_k": 0}, "gamma_k"),
    ({"alpha": -0.1}, "alpha"),
    ({"eps": 1.0}, "eps"),
    ({"function": "f3"}, "function"),
    ({"checks": ["C2"]}, "checks"),
    ({"c1_q": []}, "c1_q"),
    ({"c1_q": [0.0]}, "c1_q"),
    ({"c4_D": [0.1, "1/N"]}, "c4_D"),
    ({"c5_approx_D": "1"}, "c5_approx_D"),
    ({"c6_N": [2.5]}, "c6_N"),
    ({"c7_T": [1]}, "c7_T"),
    ({"references": "yes"}, "references"),
])
def test_parameter_errors_name_the_parameter(override, name):
    with pytest.raises(ParameterError, match=f"'{name}'"):
        at.theory_params("quick", **override)


def test_unknown_mode_and_parameter():
    with pytest.raises(ParameterError, match="'mode'"):
        at.theory_params("fast")
    with pytest.raises(ParameterError, match="bogus"):
        at.theory_params("quick", bogus=1)


def test_modes_differ_and_defaults_validate():
    q, f = at.theory_params("quick"), at.theory_params("full")
    assert q["T"] <= f["T"] and q["n_runs"] <= f["n_runs"]
    assert math.isclose(at.resolve_D(f["c4_D"][0], f["N"]), 1 / f["N"] ** 2)


# ---------------------------------------------------------------- C2, C3, C8, C9, C10
EXTRA = dict(N=4, extra_T=60, extra_runs=3, c2_q=[0.5, 2.0], c2_q_theory=False, c3_runs=1, c8_D=[0.5, 2.0],
             c10_runs=3, c10_approx_runs=1, c9_centres=5)


@pytest.fixture(scope="module")
def extra():
    p = at.theory_params("quick", **EXTRA)
    return at.run_extra(p, seed=0, n_jobs=1, backend="serial", progress=False)


def test_extra_tables_and_claims(extra):
    assert set(extra.frames()) == {"c2", "c3", "c8", "c9", "c10"}
    assert len(extra.c2) == 6 and (extra.c2.frac_in_band <= 1).all()
    # C3: the eigen basis and the Cholesky zero-padding give the same run
    assert (extra.c3.agg_err < 1e-9).all() and (extra.c3.same_choices == 1).all()
    # C8: the Lemma C.1 ratio is >= 1 (fewer data, larger variance) and within 1 + N D here
    assert (extra.c8.max_ratio >= 1 - 1e-9).all() and (extra.c8.max_ratio <= extra.c8.bound).all()
    assert set(extra.c9.alpha_kind) == {"theory", "alpha=1"}
    assert (extra.c10[extra.c10.method == at.ASYNC].max_participants == 1).all()
    assert (extra.c10[extra.c10.method == at.APPROX].mean_participants == 4).all()
    claims = at_claims.extra_claims(extra)
    ids = [c.id for c in claims]
    for cid in ("C2-eps-shrinks", "C2-eps-accuracy", "C2-variance-fidelity", "C3-merge-in-runs", "C8-staleness-bound",
                "C8-rises-with-D", "C9-coverage", "C10-participation", "C10-async-regret-unchanged"):
        assert cid in ids
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.close(at_plots.plot_extra(extra))


def test_eps_hat_closed_form():
    k = make_kernel({"name": "rbf", "gamma": 1.0})
    X = np.random.default_rng(0).normal(size=(6, 2))
    assert at_maths._eps_hat(k, X, np.ones(6), 1.0) == pytest.approx(0.0, abs=1e-12)
    # w = 0 everywhere: ε̂ = ‖K(K+λI)^-1‖ = λ_max/(λ_max + λ)
    ev = np.linalg.eigvalsh(k(X)).max()
    assert at_maths._eps_hat(k, X, np.zeros(6), 1.0) == pytest.approx(ev / (ev + 1.0), rel=1e-10)


def test_staleness_prefix_variances_match_direct():
    k = make_kernel({"name": "rbf", "gamma": 1.0})
    rng = np.random.default_rng(1)
    X = rng.normal(size=(8, 2)) * 0.5
    clients, steps = np.array([0, 1, 0, 1, 0, 0, 1, 1]), np.arange(8)
    info = {"comm_steps": [2, 5], "comm_clients": [0, 1]}  # client 0 uploads 0, 2; client 1 uploads 1, 3
    P = rng.normal(size=(3, 2))
    st = at_maths._staleness(k, X, clients, steps, info, 1.0, P)
    allP = np.vstack([X, P])
    # exchange 1 (t = 2): server holds {0, 2}; all data up to t = 2 is {0, 1, 2}
    r0 = at_maths._exact_var(k, X[[0, 2]], allP, 1.0) / at_maths._exact_var(k, X[:3], allP, 1.0)
    assert st["lemma"][0] == pytest.approx(r0.max(), rel=1e-9)
    # step 6 (client 1, last exchange at t = 5 holding {0, 2, 1, 3}) vs all data before 6
    r = at_maths._exact_var(k, X[[0, 2, 1, 3]], X[6:7], 1.0) / at_maths._exact_var(k, X[:6], X[6:7], 1.0)
    assert st["client"][6] == pytest.approx(r[0], rel=1e-9)


def test_zipf_schedule_and_alpha():
    s = at_setting._ZipfSchedule(1.2)
    rng = np.random.default_rng(0)
    a = np.array([s.active(t, 5, rng)[0] for t in range(4000)])
    f = np.bincount(a, minlength=5) / 4000
    w = np.arange(1, 6) ** -1.2
    np.testing.assert_allclose(f, w / w.sum(), atol=0.03)
    assert at.alpha_lemma44(1, 1.0, 1.0, 1.0, 0.0, 0.5, 0.1, 3.0) == pytest.approx((1 / math.sqrt(0.5) + 1))
    env = at.make_rkhs_env({"d": 3, "K": 4, "noise_std": 0.1, "gamma_k": 1.0, "n_centres": 7}, 0)
    c, a_ = env.info["centres"], env.info["a"]
    K = make_kernel({"name": "rbf", "gamma": 1.0})(c)
    assert float(a_ @ K @ a_) == pytest.approx(1.0)


def test_extra_parameter_errors():
    with pytest.raises(ParameterError, match="extra_checks"):
        at.theory_params("quick", extra_checks=["C99"])
    with pytest.raises(ParameterError, match="c9_delta"):
        at.theory_params("quick", c9_delta=2.0)


def test_theory_package_imports_in_one_direction():
    """setting <- maths <- runs <- claims <- plots: a module imports only the ones before it (no
    circle, no module ``__getattr__``)."""
    import ast
    from pathlib import Path

    order = ["setting", "maths", "runs", "claims", "plots"]
    root = Path(at.__file__).parent
    for i, name in enumerate(order):
        tree = ast.parse((root / f"{name}.py").read_text())
        used = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 1}
        assert used <= set(order[:i]), (name, used)
        assert not any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body)
