r"""FN-UCB (Dai, Shu, Verma, Low & Jaillet, "Federated Neural Bandits", ICLR 2023): Figures 1–6 and their claims.

Every curve is one algorithm of :mod:`bandits.algorithms` (FN-UCB: :mod:`~bandits.algorithms.fn_ucb`;
baselines: :mod:`~bandits.algorithms.neural_baselines`) on one environment of
:mod:`bandits.envs.fn_ucb`, run through :func:`bandits.runner.sweep` (cached, common random
numbers: run r of every curve sees the same contexts and noise). The plotted quantity is the paper's
average cumulative regret across agents, ``R̄(t) = (1/N) Σ_i Σ_{s≤t} r_{s,i}`` (Sec. 5), mean ± standard
error over runs.

Figures (paper Sec. 5 and App. E)
---------------------------------
* 1a / 1b — cosine / square: Neural UCB, Neural TS, FN-UCB N ∈ {1, 2, 5, 10} (every-round
  communication, D = 0).   1c — cosine N = 2: FN-UCB, only UCB_a, only UCB_b, no NN aggregation.
  1d — cosine N = 5, D ∈ {5, 4, 2.5} and every round, with the average number of rounds.
* 2a / 2b — shuttle / magic, m = 20, full matrices, λ = 10, ν_TKN = 0.1, ν_TK = 0.01: Neural UCB/TS,
  FN-UCB N ∈ {1, 2, 5}.   2c — shuttle, diagonal approximation, m = 50 (baselines diagonal too).
  2d — shuttle (diag, m = 50) N = 5, D ∈ {0.05, 0.03, 0.01} and every round.
* 3 — FN-UCB (full) vs FN-UCB (Less Comm.), cosine and square, N ∈ {2, 5} (N is not stated: our choice).
* 4 — Linear UCB/TS and Kernel UCB/TS (λ = 1, best ν ∈ {1, 0.1, 0.01} by mean final regret on
  ``fig4_select_runs`` runs of their own, run indices after the tested ones, so the claim is tested on
  runs disjoint from those that picked ν) beside the
  neural methods on cosine, square, shuttle, magic (the panels are not stated: our choice).
* 5 — shuttle m = 20, N = 5 (inferred from the yellow colour), without vs with diagonalisation.
* 6 — R̄(T) vs N from the 1a/1b runs.

Two trainings: App. E's text and the official code's
-----------------------------------------------------
The plain curves use FN-UCB's default training, App. E's text (``nn_mode="own_prev"``: each agent
warm-starts from its own last parameters, 30 steps of lr 0.01 per round, training stopped after
iteration 2000; θ_sync,NN the average) on the paper's synthetic environment (contexts and ``a`` uniform
on the sphere). Every figure with N or D on an axis (:data:`OFFICIAL_FIGURES`: 1a, 1b, 1d, 2a, 2b, 2c,
2d, hence 6) is also run with the official code's training as the code runs it
(:data:`OFFICIAL_TRAINING`: ``nn_mode="official_shared"``, one network trained in turn on every agent's
data, 30·N steps per round, with ``official_train_subset=True``: each training set grows only at
training rounds: the official code's ``run_fn_ucb.py`` and ``NeuralTS/learner_diag.py``, whose agents'
networks share one parameter storage; not in the paper) on the code's environment (cube-normalised contexts, the fixed ``a``;
for the UCI data the code's fixed per-agent row orders and its StandardScaler after the row normalisation), labelled
"[official]". The plain curves' UCI contexts are the paper's unit-norm rows (:mod:`bandits.envs.fn_ucb`). Each claim with N or D
on its axis is evaluated for both (``<id>`` and ``<id>-official``); the released numbers
(:data:`~bandits.experiments.fn_ucb_claims.RELEASED`, read from the authors' repository: ``results_fn_ucb/*.pkl`` and the figures embedded
in ``plot_figures.ipynb``) are compared with the official runs (ordering and rough level only).

**The gap is the training, not the D rule** (which matches the code exactly; numbers in
``figures/fn_ucb/NOTE.md``, cosine N = 5, T = 5000, 3 runs). The official code's numbers (Fig. 1d:
R̄(5000) in the tens with ≈ 350 rounds at D = 5) come from its one network taking 30·N steps per round
on every agent's data. FedAvg from θ_sync takes ≈ 30 effective steps per round, and with D > 0 there are
only a few hundred rounds before training stops at t = 2000: it stays under-fitted (R̄(5000) in the
hundreds) unless given the code's 30·N steps (``nn_mode="fedavg_budget"``: back in the tens). App. E's
text training falls short at every D: each network sees only its own agent's data and is never
re-synchronised, and the average of N such networks predicts badly (more steps do not fix it).

Hyperparameters (Sec. 5): synthetic λ = ν_TKN = ν_TK = 0.1; real λ = 10, ν_TKN = 0.1, ν_TK = 0.01;
one hidden layer, m = 20; α linear over the first 700 iterations; training 30 steps of lr 0.01, stopped
after iteration 2000; Neural UCB/TS with ν = 0.1 in the paper's width form (≡ the code's ν = 0.01,
:func:`~bandits.algorithms.neural_baselines.width_coefficient`); for the real data the baselines use the
paper's "same set of parameters", i.e. ν = ν_TKN = 0.1.

Quick mode (≤ 3 minutes on 2 cores; measured in the notebook): **3 runs** (the fewest for which
:mod:`bandits.claims` gives an interval: with 2 runs every claim would be INCONCLUSIVE),
**T = 500**, N ∈ {1, 2, 5}, Figures 1a and 1d (D ∈ {0, 2.5, 5}) each with the official code's training
beside the text's, 1b, 1c, 2c (shuttle, diagonal approximation, m = 20), 3 (N = 2), 4 (cosine and
square, ν = 0.1 only) and 6. Left out (``not_run``): the full-matrix real-data figures 2a, 2b, 5 (a
shuttle Neural UCB with its 1301 × 1301 matrix alone costs ≈ 30 s of CPU at T = 1000) and 2d. A
quick T = 1000 costs ≈ 16 s of CPU per FN-UCB N = 5 run (training is quadratic in t until it
stops), which with 3 runs does not fit; T = 500 keeps the paper's hyperparameters unchanged (α ramp
700/3, training never stopped since 2000 > T). At T = 500 the α ramp has not reached 1 (it does at
t = 703, :data:`ALPHA_FULL_T`), so the two *long-run* claims of Fig. 1c (only UCB_a's regret "in the
long run", only UCB_b "quickly learns") are reported INCONCLUSIVE with their numbers when T < 703
(the paper itself describes only UCB_b as worse than only UCB_a at first). Runs shared by several
figures (e.g. 1a's N = 2 run is 1c's and 3's Less Comm. run) are computed once. The figure groups are
a parameter (``figures``), so a notebook can run a subset or, in full mode, everything.

Cost: what each run took is recorded in ``runs.csv`` (``wall_time``, ``cpu_time``) and summed per notebook in
``figures/TIMES.md``; ``python -m bandits.bench floor`` gives FN-UCB's engines against the machine's floor (the
cosine runs and the costliest, shuttle with the diagonal approximation at m = 50, whose training on block
contexts is most of it). Full mode's time goes mostly to shuttle (full 1 301 × 1 301 matrices in Figs. 2a, 5;
diagonal at m = 50 in Figs. 2c, 2d), then cosine/square and the kernel baselines of Fig. 4.

Diverged runs. The official code's network (N(0,1) weights and biases, m = 20 or 50), lr = 0.01 and 30
full-batch steps on the mean loss diverge within the first iterations when an agent's first points include a
context of large norm: the loss curvature grows with ``‖x‖²`` and ``lr · λ_max`` of its Hessian goes far above
2. The official code's preprocessing (row L2-normalisation, then StandardScaler, "added by us" in its
``data_multi.py``) leaves shuttle rows of norm up to 32 and MAGIC rows up to 15.7; with it a smoke test of every
full-mode configuration at T = 30 found 7 diverged runs of 202 (MAGIC FN-UCB N = 5 run 2; shuttle diag m = 50
FN-UCB N = 5 run 2 at every D, Neural UCB/TS [diag] run 1), and the official code, run on the same rows and
θ0, diverges in the same runs of the baselines (:mod:`bandits.envs.fn_ucb`). The paper's contexts have unit
norm (Assumption 1; Sec. 5.2's protocol of Zhang et al. 2021), which the plain curves now use: there no run
diverges (measured at T = 30: 0 of the 129 real-data runs of the full mode, and 0 of 160 in runs 0–39 of the four
configurations above, against 21 of those 160 with the code's rows; the runs that diverged stay finite to
T = 2100, past the end of training). The "[official]" curves keep the code's preprocessing. Every cell still carries
``on_divergence="record"`` (:func:`bandits.runner.run_cell`): a run that diverges is kept in ``runs.csv`` with its
error (:func:`failed_runs`), left out of the curves' means, counted in the legends, and counted for its method
in the claims (a claim any of whose curves lost a run is INCONCLUSIVE, with the count in its value); nothing is
tuned to avoid it.

Observation (Fig. 3): at the paper's ν_TK = 0.1 (λ = 0.1) the UCB_b width is negligible next to the
network's prediction differences, so FN-UCB (full) and FN-UCB (Less Comm.) make *identical* choices in
every quick run (R̄(T) equal to the last digit; with ν_TK = 10 they differ). The Fig. 3 claim's PASS
(ratio 1 [1, 1]) is therefore "identical", which is stronger than, and explains, "very similar".

Layout: this module holds the parameters, the curves and the runs, and enters the run cache's code
fingerprint; the claims and the table of released numbers are in :mod:`bandits.experiments.fn_ucb_claims`, the
figures in :mod:`bandits.experiments.fn_ucb_plots` (both left out of the fingerprint; this module imports neither).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..runner import run_key, sweep
from .common import mode_params, resolve_device_param
from ..validation import ParameterError, boolean, check, integer, real, rule, subset_of

__all__ = ["FIGURES", "OFFICIAL_FIGURES", "OFFICIAL_TRAINING", "FIG4_ENVS", "ALPHA_FULL_T", "not_run", "fn_params",
           "validate_fn", "curves", "fn_tasks", "run_fn", "FNResults", "failed_runs", "failed_mask"]

FIGURES = ("1a", "1b", "1c", "1d", "2a", "2b", "2c", "2d", "3", "4", "5", "6")

#: The figures with N or D on an axis: each is run with both trainings (module docstring) in full mode.
OFFICIAL_FIGURES = ("1a", "1b", "1d", "2a", "2b", "2c", "2d")
#: The official code's training, as the code runs it (``run_fn_ucb.py``, ``NeuralTS/learner_diag.py``; not in
#: the paper): one shared network, trained in turn
#: on every agent's data (30·N steps per round), each agent's training set growing only at training rounds.
OFFICIAL_TRAINING = {"nn_mode": "official_shared", "official_train_subset": True}
FIG4_ENVS = ("cosine", "square", "shuttle", "magic")
#: Iteration (1-based) from which the linear α ramp (delay 3, ramp 700) is 1: UCB_a no longer decides.
ALPHA_FULL_T = 703

_FULL = dict(T=5000, n_runs=3, Ns=[1, 2, 5, 10], Ns_real=[1, 2, 5], D_cosine=[5.0, 4.0, 2.5],
             D_shuttle=[0.05, 0.03, 0.01], m=20, m_diag=50, nu_grid=[1.0, 0.1, 0.01], Ns_fig3=[2, 5],
             stop_train_after=2000, figures=list(FIGURES), official=True, official_figures=list(OFFICIAL_FIGURES),
             fig4_envs=list(FIG4_ENVS), fig4_select_runs=2, device="cpu", stride=10, csv_stride=100)
#: Quick mode (module docstring): 3 runs (the least :mod:`bandits.claims` gives an interval for), T = 500,
#: the synthetic figures, shuttle with the diagonal approximation at m = 20, the official code's training beside
#: Figs. 1a and 1d (N and D on an axis; Fig. 6 is drawn from 1a's runs).
_QUICK = dict(_FULL, T=500, n_runs=3, Ns=[1, 2, 5], D_cosine=[5.0, 2.5], D_shuttle=[0.05, 0.01], m_diag=20,
              nu_grid=[0.1], Ns_fig3=[2], figures=["1a", "1b", "1c", "1d", "2c", "3", "4", "6"],
              official_figures=["1a", "1d"], fig4_envs=["cosine", "square"], fig4_select_runs=1, stride=5,
              csv_stride=5)

SYNTH = {"lam": 0.1, "nu_a": 0.1, "nu_b": 0.1}
REAL = {"lam": 10.0, "nu_a": 0.1, "nu_b": 0.01}


def fn_params(mode: str = "quick", **overrides) -> dict:
    """The parameters of ``mode`` ("quick" or "full") with overrides (None = keep) applied."""
    p = mode_params(mode, _FULL, _QUICK, overrides, "FN-UCB")
    validate_fn(p)
    return p


def validate_fn(p: dict) -> None:
    for k in ("T", "n_runs", "m", "m_diag", "stride", "csv_stride"):
        check(k, p[k], integer(ge=1))
    check("csv_stride", p["csv_stride"], rule(lambda c: not c % p["stride"], f"a multiple of stride = {p['stride']}"),
          note=f"the curves are kept every {p['stride']} rounds")
    check("stop_train_after", p["stop_train_after"], integer(ge=0))
    check("fig4_select_runs", p["fig4_select_runs"], integer(ge=1))
    check("figures", p["figures"], subset_of(*FIGURES))
    check("official_figures", p["official_figures"], subset_of(*OFFICIAL_FIGURES))
    check("fig4_envs", p["fig4_envs"], subset_of(*FIG4_ENVS))
    check("official", p["official"], boolean())
    for k in ("Ns", "Ns_real", "Ns_fig3"):
        check(k, p[k], rule(lambda xs: bool(xs) and all(integer(ge=1).ok(n) for n in xs),
                            "a non-empty list of integers >= 1"))
    for k in ("D_cosine", "D_shuttle", "nu_grid"):
        check(k, p[k], rule(lambda xs: bool(xs) and all(real(gt=0).ok(v) for v in xs), "a non-empty list of numbers > 0"))
    resolve_device_param(p)


def _env(name: str, official: bool) -> dict:
    if name in ("cosine", "square"):
        e = {"kind": "fn_synthetic", "function": name}
        return dict(e, sampler="cube_normalized", a="official") if official else e
    e = {"kind": "fn_classification", "dataset": name}
    return dict(e, official_streams=True, standardize=True) if official else e


@dataclass(frozen=True)
class Curve:
    """One curve: ``figure`` group, ``env`` name, legend ``label``, algorithm, params, N."""

    figure: str
    env: str
    label: str
    algorithm: str
    params: tuple
    N: int
    official: bool = False
    reps: tuple | None = None  # None: runs 0 … n_runs − 1; Fig. 4's ν selection runs come after them

    def config(self, p: dict) -> dict:
        # on_divergence="record": a run whose network training overflows (it happens with the official
        # code's preprocessing of the UCI data, rows of norm up to 32, N(0,1) weights, lr = 0.01: see the
        # module docstring) is reported as failed, not allowed to stop the other 300 runs
        return {"loop": "regret", "env": _env(self.env, self.official), "env_seed": 0,
                "algorithm": self.algorithm, "params": dict(self.params), "N": int(self.N), "T": int(p["T"]),
                "on_divergence": "record"}


def _fn(p, hyper, **kw):
    """FN-UCB parameters; options left at FN-UCB's defaults (D = 0, diag = False, variant = "less_comm") are
    omitted, so a run shared by several figures has one configuration (and is computed once)."""
    kw = {k: v for k, v in kw.items() if not ((k == "D" and v == 0) or (k == "diag" and not v)
                                              or (k == "variant" and v == "less_comm"))}
    return tuple(sorted(dict(hyper, width=kw.pop("width", p["m"]), stop_train_after=p["stop_train_after"],
                             device=p["device"], **kw).items()))


def _neural(p, hyper, **kw):
    return tuple(sorted(dict(lam=hyper["lam"], nu=0.1, width=kw.pop("width", p["m"]),
                             stop_train_after=p["stop_train_after"], device=p["device"], **kw).items()))


def _trainings(p: dict, fig: str):
    """``[(official, FN-UCB params, label suffix)]`` for a figure: App. E's text training (FN-UCB's default,
    the paper's environment) and, where ``fig`` is an official figure, the official code's training on the
    code's environment (labelled " [official]")."""
    out = [(False, {}, "")]
    if p["official"] and fig in p["official_figures"]:
        out.append((True, dict(OFFICIAL_TRAINING), " [official]"))
    return out


def curves(p: dict) -> list[Curve]:
    """Every curve of the requested figure groups (module docstring)."""
    figs, out = set(p["figures"]), []
    for fig, env in (("1a", "cosine"), ("1b", "square"), ("2a", "shuttle"), ("2b", "magic")):
        if fig not in figs and not (fig in ("1a", "1b") and "6" in figs) and not (fig == "2a" and "5" in figs):
            continue
        hyper = SYNTH if env in ("cosine", "square") else REAL
        Ns = p["Ns"] if fig in ("1a", "1b") else p["Ns_real"]
        for off, extra, tag in _trainings(p, fig):
            for alg in ("NeuralUCB", "NeuralTS"):
                out.append(Curve(fig, env, alg + tag, alg, _neural(p, hyper), 1, off))
            for N in Ns:
                out.append(Curve(fig, env, f"FN-UCB (N={N}){tag}", "FN-UCB", _fn(p, hyper, **extra), N, off))
    if "1c" in figs:
        for lab, alg in (("FN-UCB (N=2)", "FN-UCB"), ("only UCB_a", "FN-UCB [only UCB_a]"),
                         ("only UCB_b", "FN-UCB [only UCB_b]"), ("no NN aggregation", "FN-UCB [no aggregation]")):
            out.append(Curve("1c", "cosine", lab, alg, _fn(p, SYNTH), 2))
    if "1d" in figs:
        for off, extra, tag in _trainings(p, "1d"):
            for D in [0.0] + list(p["D_cosine"]):
                lab = ("FN-UCB (N=5, comm. every round)" if D == 0 else f"FN-UCB (N=5, D={D:g})") + tag
                out.append(Curve("1d", "cosine", lab, "FN-UCB", _fn(p, SYNTH, D=float(D), **extra), 5, off))
    if "2c" in figs:
        for off, extra, tag in _trainings(p, "2c"):
            for alg in ("NeuralUCB [diag]", "NeuralTS [diag]"):
                out.append(Curve("2c", "shuttle", alg + tag, alg, _neural(p, REAL, width=p["m_diag"]), 1, off))
            for N in p["Ns_real"]:
                out.append(Curve("2c", "shuttle", f"FN-UCB (N={N}, diag){tag}", "FN-UCB",
                                 _fn(p, REAL, width=p["m_diag"], diag=True, **extra), N, off))
    if "2d" in figs:
        for off, extra, tag in _trainings(p, "2d"):
            for D in [0.0] + list(p["D_shuttle"]):
                lab = ("FN-UCB (N=5, diag, comm. every round)" if D == 0 else f"FN-UCB (N=5, diag, D={D:g})") + tag
                out.append(Curve("2d", "shuttle", lab, "FN-UCB",
                                 _fn(p, REAL, width=p["m_diag"], diag=True, D=float(D), **extra), 5, off))
    if "3" in figs:
        for env in ("cosine", "square"):
            for N in p["Ns_fig3"]:
                for var in ("less_comm", "full"):
                    lab = f"FN-UCB (N={N}, {'Less Comm.' if var == 'less_comm' else 'full'})"
                    out.append(Curve("3", env, lab, "FN-UCB", _fn(p, SYNTH, variant=var), N))
    if "4" in figs:
        for env in p["fig4_envs"]:
            hyper = SYNTH if env in ("cosine", "square") else REAL
            for alg in ("NeuralUCB", "NeuralTS"):
                out.append(Curve("4", env, alg, alg, _neural(p, hyper), 1))
            for alg in ("LinearUCB", "LinearTS", "KernelUCB (FN)", "KernelTS"):
                for nu in p["nu_grid"]:
                    par = tuple(sorted({"lam": 1.0, "nu": float(nu)}.items()))
                    out.append(Curve("4", env, f"{alg} (ν={nu:g})", alg, par, 1))
                    if len(p["nu_grid"]) > 1:  # ν is picked on runs of their own, disjoint from the claim's
                        sel = tuple(range(p["n_runs"], p["n_runs"] + p["fig4_select_runs"]))
                        out.append(Curve("4-select", env, f"{alg} (ν={nu:g})", alg, par, 1, reps=sel))
    if "5" in figs:
        for diag in (False, True):
            out.append(Curve("5", "shuttle", f"FN-UCB (N=5, m=20{', diag' if diag else ''})", "FN-UCB",
                             _fn(p, REAL, width=20, diag=diag), 5))
    return out


def fn_tasks(p: dict) -> tuple[list[tuple[dict, int]], list[tuple[Curve, int]]]:
    """Distinct ``(config, rep)`` tasks (a run shared by several figures is computed once) and, for every
    (curve, rep), the index of its task."""
    cs = curves(p)
    tasks, index, where = [], {}, []
    for c in cs:
        cfg = c.config(p)
        for rep in (c.reps if c.reps is not None else range(p["n_runs"])):
            k = run_key(cfg, 0, rep)
            if k not in index:
                index[k] = len(tasks)
                tasks.append((cfg, rep))
            where.append((c, rep, index[k]))
    return tasks, where


@dataclass
class FNResults:
    params: dict
    curves: "object"  # DataFrame: figure, env, label, N, rep, t, regret (R̄(t)), rounds (cumulative)
    runs: "object"  # DataFrame: one row per (curve, rep): R_T (= R̄(T)), rounds, wall_time
    n_cached: int = 0
    n_computed: int = 0


def run_fn(p: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir: str | None = None,
           progress: bool = True) -> FNResults:
    """Run every curve's runs and return the tidy tables."""
    import pandas as pd

    tasks, where = fn_tasks(p)
    results, stats = sweep(tasks, seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir, progress=progress,
                           desc="FN-UCB")
    T, stride = p["T"], p["stride"]
    keep = np.unique(np.r_[np.arange(stride - 1, T, stride), T - 1])
    rows, run_rows = [], []
    for c, rep, i in where:
        a, meta = results[i]["arrays"], results[i]["meta"]
        if meta.get("failed"):  # a diverged run: in the runs table (R_T = NaN, the error), not in the curves
            run_rows.append({"figure": c.figure, "env": c.env, "label": c.label, "algorithm": c.algorithm, "N": c.N,
                             "official": c.official, "rep": rep,
                             **{k: v for k, v in c.params if k in ("D", "nu", "diag", "variant", "width")},
                             "R_T": float("nan"), "rounds": float("nan"), "wall_time": float("nan"), "cpu_time": float("nan"),
                             "failed": meta["failed"]})
            continue
        R = np.cumsum(a["regret"]) / c.N
        rt = meta["info"].get("round_times")
        lab = {"figure": c.figure, "env": c.env, "label": c.label, "algorithm": c.algorithm, "N": c.N,
               "official": c.official, "rep": rep}
        frame = {**lab, "t": keep + 1, "regret": R[keep]}
        if rt is not None:  # cumulative communication rounds up to t
            frame["rounds"] = np.searchsorted(np.sort(np.asarray(rt, dtype=float)), keep, side="right")
        rows.append(pd.DataFrame(frame))
        n_rounds = meta["info"].get("n_rounds", 0)
        run_rows.append({**lab, **{k: v for k, v in c.params if k in ("D", "nu", "diag", "variant", "width")},
                         "R_T": float(R[-1]), "rounds": float(n_rounds or 0), "wall_time": meta["wall_time"],
                         "cpu_time": meta.get("cpu_time"), "failed": ""})
    return FNResults(p, pd.concat(rows, ignore_index=True), pd.DataFrame(run_rows), stats.cached, stats.computed)


def failed_runs(res: FNResults):
    """The runs that diverged (``failed`` non-empty): figure, env, label, rep and the error. They are left
    out of the curves' means and of the paired claims (a claim over fewer than 3 complete pairs is
    INCONCLUSIVE); figure legends say how many of a curve's runs diverged."""
    r = res.runs
    return r[failed_mask(r)][["figure", "env", "label", "N", "rep"]].assign(
        failed=r.loc[failed_mask(r), "failed"] if "failed" in r else "").reset_index(drop=True)


def failed_mask(runs):
    """Boolean mask of the diverged runs (a runs table without a ``failed`` column has none)."""
    if "failed" not in runs:
        return np.zeros(len(runs), dtype=bool)
    return runs.failed.fillna("").astype(str).str.len().to_numpy() > 0


def not_run(p: dict) -> list[str]:
    """The figure groups of the paper that these parameters leave out (e.g. quick mode's real-data figures)."""
    return [f for f in FIGURES if f not in p["figures"]]
