"""The setting of the Async-KernelUCB theory checks: names, parameters (quick and full mode), the
environments (the S5 functions, the C9 RKHS function, the C10 Zipf arrivals) and the run configs.
Imports nothing else of this package's theory checks."""
from __future__ import annotations

import math
import zlib
from functools import partial

import numpy as np

from ...envs.base import ContextualEnv
from ...envs.functions import f1, f2, sample_ball
from ...kernels import make_kernel
from ...validation import ParameterError, boolean, check, each, ge, integer, keys_in, lt, number, one_of, rule, subset_of


CHECKS = ("C1", "C4", "C5", "C6", "C7")
EXTRA_CHECKS = ("C2", "C3", "C8", "C9", "C10")  # run by runs.run_extra
INV_N2 = "1/N^2"  # the theory's threshold D = 1/N², resolved per N
ASYNC, APPROX, ONE, NK = "Async-KernelUCB", "Approx-DisKernelUCB", "OneKernelUCB", "NKernelUCB"
_ALG = {ASYNC: "AsyncKernelUCB", APPROX: "ApproxDisKernelUCB", ONE: "OneKernelUCB", NK: "N-KernelUCB"}

_FULL = dict(
    N=20, T=3000, n_runs=3, d=5, function="f1", K=20, noise_std=0.1, gamma_k=1.0, lam=1.0, alpha=1.0,
    eps=0.5, checks=list(CHECKS),
    c1_q=[0.25, 0.5, 1.0, 2.0, 4.0], c1_D=[0.3, 1.0, 3.0],
    c4_q=1.0, c4_D=[INV_N2, 0.1, 0.3, 1.0, 3.0, 10.0],
    c5_q=[0.25, 1.0], c5_D=[INV_N2, 0.1, 0.3, 1.0, 3.0, 10.0], c5_approx_D=[0.1, 0.3, 1.0, 3.0, 10.0],
    references=True,
    c6_N=[5, 10, 20, 40], c6_T=2000, c6_D=[INV_N2, 1.0],
    c7_T=[500, 1000, 2000, 4000], c7_D=[INV_N2, 1.0],
    extra_checks=["C2", "C3", "C8", "C9", "C10"], extra_T=2000, extra_runs=3,
    c2_q=[0.25, 1.0, 4.0], c2_q_theory=True, c3_runs=2, c8_D=[0.1, 1.0, 3.0],
    c9_R=0.1, c9_centres=30, c9_delta=0.1, c10_s=1.2, c10_runs=10, c10_approx_runs=3,
)
_QUICK = dict(
    _FULL, T=2000, n_runs=2, c1_q=[0.25, 1.0, 4.0], c1_D=[1.0],
    c5_q=[1.0], c5_approx_D=[0.3, 1.0, 10.0], references=False,
    c6_N=[5, 10, 20], c6_T=1000, c6_D=[INV_N2],
    c7_T=[250, 500, 1000, 2000], c7_D=[INV_N2],
    extra_T=1000, extra_runs=3, c3_runs=1, c8_D=[1.0, 3.0], c10_runs=5, c10_approx_runs=1,
)


# ------------------------------------------------------------------------------ parameters
#: A D-grid's item: a finite number > 0 (a Python int or float), or the string ``INV_N2``.
_D_ITEM = rule(lambda v: v == INV_N2 or (not isinstance(v, bool) and isinstance(v, (int, float))
                                         and math.isfinite(v) and v > 0), f"a number > 0 or {INV_N2!r}")


def _num_list(integer=False, minimum=None):
    """The rule: a non-empty list of finite numbers > 0 (``integer``: ints, numpy ints too), ``>= minimum``."""
    def ok_item(v):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer) if integer else (int, float)):
            return False
        return math.isfinite(v) and v > 0 and (minimum is None or v >= minimum)
    kind = "integers" if integer else "numbers"
    return each(rule(ok_item, f"{kind[:-1]}{f' >= {minimum}' if minimum is not None else ' > 0'}"))


def theory_params(mode: str = "quick", **overrides) -> dict:
    """The parameters of ``mode`` (``"quick"`` or ``"full"``) with ``overrides`` applied and validated.

    Raises :class:`ParameterError` naming the offending parameter.
    """
    check("mode", mode, one_of("quick", "full"))
    p = {k: (list(v) if isinstance(v, list) else v) for k, v in (_FULL if mode == "full" else _QUICK).items()}
    check("overrides", overrides, keys_in(*p), note="the Async-KernelUCB theory parameters")
    p.update({k: v for k, v in overrides.items() if v is not None})
    for k in ("N", "T", "n_runs", "d", "K", "c6_T"):
        check(k, p[k], integer(ge=1))
    check("N", p["N"], integer(ge=1))
    for k in ("gamma_k", "lam", "c4_q"):
        check(k, p[k], number(gt=0))
    check("alpha", p["alpha"], number(ge=0))
    check("noise_std", p["noise_std"], number(ge=0))
    check("eps", p["eps"], number(gt=0, lt=1))
    check("function", p["function"], one_of("f1", "f2"))
    check("checks", p["checks"], subset_of(*CHECKS))
    check("references", p["references"], boolean())
    for k in ("c1_q", "c5_q", "c5_approx_D"):
        check(k, p[k], _num_list())
    for k in ("c1_D", "c4_D", "c5_D", "c6_D", "c7_D"):
        check(k, p[k], each(_D_ITEM))
    check("c6_N", p["c6_N"], _num_list(integer=True, minimum=1))
    check("extra_checks", p["extra_checks"], subset_of(*EXTRA_CHECKS))
    for k in ("extra_T", "extra_runs", "c3_runs", "c9_centres", "c10_runs", "c10_approx_runs"):
        check(k, p[k], integer(ge=1))
    check("c2_q", p["c2_q"], _num_list())
    check("c8_D", p["c8_D"], each(_D_ITEM))
    for k in ("c9_R", "c9_delta", "c10_s"):
        check(k, p[k], number(gt=0))
    check("c9_delta", p["c9_delta"], lt(1))
    check("c2_q_theory", p["c2_q_theory"], boolean())
    check("c7_T", p["c7_T"], _num_list(integer=True, minimum=2))
    check("T", p["T"], ge(2))
    return p


def _dlabel(D) -> str:
    return INV_N2 if D == INV_N2 else f"{float(D):g}"


def resolve_D(D, N: int) -> float:
    """A threshold value: ``"1/N^2"`` → ``1/N²``; a number is returned as a float."""
    return 1.0 / N**2 if D == INV_N2 else float(D)


def _beta(p):
    return (1.0 + p["eps"]) / (1.0 - p["eps"])


# ------------------------------------------------------------------------------ environment
def make_theory_env(spec: dict, env_seed: int) -> ContextualEnv:
    """The S5 environment: ``spec = {"name": "f1"|"f2", "d", "K", "noise_std", "schedule"}``.

    Contexts and θ* uniform in the unit ball of R^d (as in §5.1), θ* drawn from
    ``SeedSequence([env_seed, crc32(f"{name}-d{d}")])`` (so d = 5 and the registered d = 20
    functions get independent draws).
    """
    name, d = spec["name"], int(spec["d"])
    fun = {"f1": f1, "f2": f2}[name]
    ss = np.random.SeedSequence([int(env_seed), zlib.crc32(f"{name}-d{d}".encode())])
    theta = sample_ball(np.random.default_rng(ss), 1, d)[0]
    theta.setflags(write=False)
    return ContextualEnv(sampler=partial(_ball, d=d), f=partial(fun, theta=theta), n_arms=int(spec["K"]), dim=d,
                         noise_std=float(spec["noise_std"]), name=f"{name}-d{d}",
                         schedule=spec.get("schedule", "uniform"), info={"theta": theta})


def _ball(rng, n, d):
    return sample_ball(rng, n, d)


# ------------------------------------------------------------------------------ one run
def _config(p: dict, method: str, N: int, T: int, rep: int, D=None, q=None, c=None) -> dict:
    kernel = {"name": "rbf", "gamma": float(p["gamma_k"])}
    env = {"name": p["function"], "d": int(p["d"]), "K": int(p["K"]), "noise_std": float(p["noise_std"]),
           "schedule": "uniform"}
    if method == ASYNC:
        params = {"kernel": kernel, "lam": float(p["lam"]), "alpha": float(p["alpha"]), "D": float(D), "q": float(q)}
    elif method == APPROX and c is None:  # Figure 2's trigger: the variance sum over the new data > D
        params = {"kernel": kernel, "lam": float(p["lam"]), "beta": float(p["alpha"]), "D": float(D),
                  "qbar": float(q), "trigger": "var_sum"}
    elif method == APPROX:  # a DisLinUCB-style log-det trigger (not in the paper; see async_kernelucb), D_sync = c·T/(N d log T)
        Ds = float(c) * T / (N * p["d"] * math.log(T))
        params = {"kernel": kernel, "lam": float(p["lam"]), "beta": float(p["alpha"]), "D": Ds, "qbar": float(q),
                  "trigger": "dislinucb_logdet"}
    else:
        params = {"kernel": kernel, "lam": float(p["lam"]), "beta": float(p["alpha"]), "variance_scale": "ridge"}
    return {"loop": "async_theory", "env": env, "env_seed": int(rep), "algorithm": _ALG[method], "params": params,
            "N": int(N), "T": int(T)}


class _ZipfSchedule:
    """One active client per step, client ``i`` (0-based) with probability ∝ ``(i + 1)^(−s)``
    (truncated Zipf law, s = 1.2: a choice of this package; the paper names no arrival law): client 0 is active most often, the last one rarely."""

    def __init__(self, s: float):
        self.s = float(s)

    def active(self, t: int, n_agents: int, rng: np.random.Generator) -> np.ndarray:
        w = np.arange(1, n_agents + 1, dtype=float) ** (-self.s)
        return np.array([int(np.searchsorted(np.cumsum(w / w.sum()), rng.random(), side="right"))])


def make_rkhs_env(spec: dict, env_seed: int) -> ContextualEnv:
    """The C9 environment (a choice of this package): ``f(x) = Σ_{j ≤ n_centres} a_j k(x, c_j)`` with the Gaussian
    kernel ``k(x, y) = exp(−γ_k‖x − y‖²)`` of the algorithm, centres ``c_j`` uniform in the unit ball
    of R^d, ``a ~ N(0, I)`` rescaled so that ``‖f‖_k = √(aᵀK_cc a) = 1``; contexts uniform in the
    unit ball, Gaussian noise ``noise_std``. Drawn from ``SeedSequence([env_seed, crc32("rkhs-d{d}")])``.
    """
    d, m = int(spec["d"]), int(spec["n_centres"])
    kern = make_kernel({"name": "rbf", "gamma": float(spec["gamma_k"])})
    rng = np.random.default_rng(np.random.SeedSequence([int(env_seed), zlib.crc32(f"rkhs-d{d}".encode())]))
    c = sample_ball(rng, m, d)
    a = rng.standard_normal(m)
    a /= math.sqrt(float(a @ kern(c) @ a))
    c.setflags(write=False)
    a.setflags(write=False)
    return ContextualEnv(sampler=partial(_ball, d=d), f=partial(_rkhs_f, kern=kern, c=c, a=a), n_arms=int(spec["K"]),
                         dim=d, noise_std=float(spec["noise_std"]), name=f"rkhs-d{d}", schedule="uniform",
                         info={"centres": c, "a": a})


def _rkhs_f(X, kern, c, a):
    return kern(np.atleast_2d(X), c) @ a
