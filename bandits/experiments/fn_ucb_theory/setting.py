"""FN-UCB theory checks: the setting, the parameters of each mode and the runs each check needs
(:mod:`bandits.experiments.fn_ucb_theory`'s docstring describes the checks)."""
from __future__ import annotations

import numpy as np

from ..common import mode_params, resolve_device_param
from ...validation import ParameterError, boolean, check, integer, real, rule

#: D = C_N · T / N for E6, fixed from a pilot (N = 1, T = 500, master seed 99, not a checked seed): c = 1 gave
#: 25 rounds and c = 4 gave 12, so c = 1.5 for our target of "~20 rounds at N = 1" (rounds ∝ c^(−1/2)).
C_N = 1.5

_FULL = dict(T=1000, n_runs=3, n_D=5, D_grid=[0.5, 1.0, 2.5, 5.0, 10.0, 20.0], N_grid=[1, 2, 4, 8], c_N=C_N,
             n_E3=2, T_E3=2000, m=20, stop_train_after=2000, device="cpu", stride=10, official=True,
             # E2: FN-UCB N = N_E2 for T_E2 vs N = 1 for N_E2·T_E2; R_T(N) over N_grid_E2 at T_E2
             T_E2=1000, N_E2=4, N_grid_E2=[1, 2, 4, 8],
             # E8: N = 1, UCB_a only, theory α on M_E8 candidates + the last recent_E8 queried points
             T_E8=1000, t_E8=[1, 10, 50, 100, 200, 500, 1000], M_E8=1000, recent_E8=200,
             # E12: paper features, width m_E12, λ = lam_E12, N = N_E12, one UCB_a-only run per ν
             m_E12=256, T_E12=500, N_E12=2, lam_E12=1.0, nu_E12=[0.01, 0.1, 1.0, 2.0],
             # E14: widths m_E14, n_E14 points per agent, N_E14 agents, n_test_E14 fresh test contexts
             m_E14=[32, 128, 512], n_E14=200, N_E14=4, lam_E14=1.0, n_test_E14=1000, tol_E14=1e-3)
_QUICK = dict(_FULL, T=500, D_grid=[1.0, 2.5, 5.0, 10.0, 20.0], T_E3=500, stride=5,
              T_E2=250, N_grid_E2=[1, 2, 4], T_E8=500, m_E12=64, T_E12=250, m_E14=[32, 128])

SYNTH = {"lam": 0.1, "nu_a": 0.1, "nu_b": 0.1}

#: The checks of this package's list (E1–E14) that are claims of the figures notebook (``fn_ucb``), not of this one.
NOT_DONE = {
    "E1": "regret vs N: the figures notebook's Figs. 1a and 6 claims (fn_ucb)",
    "E9": "D ordering: the figures notebook's Fig. 1d claim (fn_ucb)",
    "E10": "components: the figures notebook's Fig. 1c claims (fn_ucb)",
    "E11": "Less Comm. ≈ full: the figures notebook's Fig. 3 claims (fn_ucb)",
}


def theory_params(mode: str = "quick", **overrides) -> dict:
    """The parameters of ``mode`` ("quick" or "full") with overrides (None = keep) applied."""
    p = mode_params(mode, _FULL, _QUICK, overrides, "FN-UCB theory")
    validate_theory(p)
    return p


def _distinct_list(kind, minimum, min_len=1):
    """The rule: a list of at least ``min_len`` distinct ``kind`` ("int"/"number") values > or >= ``minimum``."""
    def ok_item(v):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer) if kind == "int" else (int, float, np.number)):
            return False
        return v >= minimum if kind == "int" else v > minimum

    def ok(values):
        return (isinstance(values, (list, tuple)) and len(values) >= min_len and len(set(values)) == len(values)
                and all(ok_item(v) for v in values))
    what = f"integers >= {minimum}" if kind == "int" else f"numbers > {minimum}"
    return rule(ok, f"a list of at least {min_len} distinct {what}")


def validate_theory(p: dict) -> None:
    for k in ("T", "n_runs", "n_D", "n_E3", "T_E3", "m", "stride", "T_E2", "T_E8", "M_E8", "recent_E8", "T_E12",
              "N_E12", "n_E14", "N_E14", "n_test_E14"):
        check(k, p[k], integer(ge=1))
    check("N_E2", p["N_E2"], integer(ge=2))
    check("m_E12", p["m_E12"], integer(ge=2))
    check("m_E12", p["m_E12"], rule(lambda m: not m % 2, "even"), note="the NTK network's mirrored blocks")
    check("N_grid_E2", p["N_grid_E2"], _distinct_list("int", 1, 3))
    check("t_E8", p["t_E8"], _distinct_list("int", 1, 3))
    check("nu_E12", p["nu_E12"], _distinct_list("number", 0.0, 2))
    check("m_E14", p["m_E14"], _distinct_list("int", 2, 2))
    check("m_E14", p["m_E14"], rule(lambda ms: not any(v % 2 for v in ms), "even widths"), note="mirrored blocks")
    t_max = min(p["T_E8"], 500)
    check("t_E8", p["t_E8"], rule(lambda ts: sum(t <= t_max for t in ts) >= 3,
                                  "at least 3 iterations t <= min(T_E8, 500)"))
    for k in ("lam_E12", "lam_E14"):
        check(k, p[k], real(gt=0))
    check("tol_E14", p["tol_E14"], rule(lambda v: isinstance(v, float) and 0 < v < 1, "a float in (0, 1)"))
    check("stop_train_after", p["stop_train_after"], integer(ge=0))
    check("official", p["official"], boolean())
    three = rule(lambda g: len(g) >= 3, "at least 3 values")
    check("D_grid", p["D_grid"], three, rule(lambda g: all(real(gt=0).ok(v) for v in g), "numbers > 0"))
    check("N_grid", p["N_grid"], three, rule(lambda g: all(integer(ge=1).ok(n) for n in g), "integers >= 1"))
    check("c_N", p["c_N"], real(gt=0))
    resolve_device_param(p)


ENV = {"kind": "fn_synthetic", "function": "cosine"}
#: The official code's environment (cube-normalised contexts, its fixed ``a``) for the official training.
ENV_OFFICIAL = dict(ENV, sampler="cube_normalized", a="official")
#: The checks with N or D varying that are also run with the official code's training (suffix "o").
OFFICIAL_CHECKS = ("E5", "E6", "E2", "E2N")


def _config(p, algorithm, N, T, D=0.0, params=None, probe=None, official=False):
    """A regret-loop run: the module's synthetic setting (``SYNTH``, width ``p["m"]``) updated by ``params``;
    ``probe`` (E8, E12) names what :func:`run_theory_cell` records besides the potential. ``official``:
    the official code's training (:data:`bandits.experiments.fn_ucb.OFFICIAL_TRAINING`) on its environment."""
    from ..fn_ucb import OFFICIAL_TRAINING

    par = dict(SYNTH, width=p["m"], stop_train_after=p["stop_train_after"], device=p["device"])
    par.update(params or {})
    if official:
        par.update(OFFICIAL_TRAINING)
    if D > 0:
        par["D"] = float(D)
    cfg = {"loop": "regret", "env": dict(ENV_OFFICIAL if official else ENV), "env_seed": 0, "algorithm": algorithm,
           "params": dict(sorted(par.items())), "N": int(N), "T": int(T)}
    if probe is not None:
        cfg["probe"] = dict(sorted(probe.items()))
    return cfg


def _e8_config(p):
    """E8: N = 1, UCB_a-only selection (``alpha_mode="zero"``) keeping the statistics of the package's theory α
    (``local_stats=True``), which an observer evaluates (:class:`~.runs.AlphaRecorder`)."""
    t_log = sorted(int(t) for t in p["t_E8"] if t <= p["T_E8"])
    return _config(p, "FN-UCB", 1, p["T_E8"], params={"alpha_mode": "zero", "local_stats": True,
                                                       "alpha_recent": p["recent_E8"]},
                   probe={"kind": "theory_alpha", "t_log": t_log, "n_candidates": p["M_E8"]})


def _e12_config(p, nu):
    """E12: the paper's features (NTK init, φ = g/√m), width m_E12, λ = lam_E12, UCB_a only with ν_TKN = ν."""
    return _config(p, "FN-UCB [only UCB_a]", p["N_E12"], p["T_E12"],
                   params={"width": p["m_E12"], "init": "ntk", "feature_scale": "sqrt_m", "objective": "paper",
                           "lam": float(p["lam_E12"]), "nu_a": float(nu)}, probe={"kind": "ucb_a_coverage"})


def _e14_config(p, m):
    """E14: not a bandit run: GD from θ0 on fixed data (the ``"fn_linearisation"`` loop)."""
    return {"loop": "fn_linearisation", "env": dict(ENV), "env_seed": 0, "m": int(m), "n": int(p["n_E14"]),
            "N": int(p["N_E14"]), "lam": float(p["lam_E14"]), "n_test": int(p["n_test_E14"]),
            "tol": float(p["tol_E14"]), "device": "cpu"}


def theory_tasks(p: dict) -> dict[str, list[tuple[dict, int]]]:
    """``{check: [(config, rep), ...]}`` for E3 (FN-UCB and only-UCB_a), E5 (D grid), E6 (N grid),
    E2 (N_E2 agents for T_E2 vs one agent for N_E2·T_E2; "E2N": the N grid at T_E2), E8, E12 (one run
    per ν) and E14 (one per width). The costliest groups come first (E12 at m = 256, E2's long single
    agent), so that parallel workers finish together; the order does not change any run."""
    reps = range(p["n_runs"])
    out = {"E12": [], "E2": [], "E3": [], "E3a": [], "E5": [], "E6": [], "E2N": [], "E8": [], "E14": []}
    offs = [False, True] if p["official"] else [False]
    if p["official"]:
        out.update({g + "o": [] for g in OFFICIAL_CHECKS})
    for r in reps:
        out["E3"].append((_config(p, "FN-UCB", p["n_E3"], p["T_E3"]), r))
        out["E3a"].append((_config(p, "FN-UCB [only UCB_a]", p["n_E3"], p["T_E3"]), r))
        for off in offs:  # App. E's text training, then (suffix "o") the official code's
            o = "o" if off else ""
            for D in sorted(p["D_grid"]):
                out["E5" + o].append((_config(p, "FN-UCB", p["n_D"], p["T"], D, official=off), r))
            for N in sorted(p["N_grid"]):
                out["E6" + o].append((_config(p, "FN-UCB", N, p["T"], p["c_N"] * p["T"] / N, official=off), r))
            out["E2" + o].append((_config(p, "FN-UCB", p["N_E2"], p["T_E2"], official=off), r))
            out["E2" + o].append((_config(p, "FN-UCB", 1, p["N_E2"] * p["T_E2"], official=off), r))
            for N in sorted(p["N_grid_E2"]):
                out["E2N" + o].append((_config(p, "FN-UCB", N, p["T_E2"], official=off), r))
        out["E8"].append((_e8_config(p), r))
        for nu in sorted(p["nu_E12"]):
            out["E12"].append((_e12_config(p, nu), r))
        for m in sorted(p["m_E14"]):
            out["E14"].append((_e14_config(p, m), r))
    return out

