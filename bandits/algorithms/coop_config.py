"""Coop-KernelUCB's settings, validated once: :class:`CoopConfig` (Dubey & Pentland, ICML 2020).

Every method of :mod:`bandits.algorithms.coop_kernel_ucb` is one engine
(:class:`~bandits.algorithms.coop_engine.NetworkKernelUCB`) with different settings; this module holds
those settings as a frozen dataclass, checks each once when it is built and normalises the numbers
(``float``/``int``), so the parts of the engine (feature maps, the ``K_z`` factor, the primal and dual
solvers) read values that are known to be valid. The environment-dependent checks (the network's
shape, the oracle ``K_z``'s shape, Dist's centres within ``γ`` hops) stay with the engine, which sees
the environment. The meaning of each setting: :class:`~bandits.algorithms.coop_engine.NetworkKernelUCB`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .coop_features import _kernel_name
from ..validation import between, check, check_all, ge, gt, one_of, optional, rule

__all__ = ["CoopConfig", "ACCEPTS", "KZ_MODES", "WIDTHS", "PATHS", "PERIPHERAL_MODES", "TRUNCATIONS", "UPDATES",
           "FEATURES"]

ACCEPTS = ("clique", "neighbourhood", "self")
KZ_MODES = ("mmd", "oracle", "ones")
WIDTHS = ("eta", "theory", "igp", "oful")
PATHS = ("primal", "dual")
PERIPHERAL_MODES = ("copy_policy", "copy_arm", "nearest_arm")
TRUNCATIONS = ("raise", "own_residual")
UPDATES = ("auto", "always", "never")
FEATURES = ("rff", "nystroem", "exact")


@dataclass(frozen=True)
class CoopConfig:
    """The settings of one Coop-KernelUCB-family policy, checked once (``ValueError`` naming the setting).

    ``accept``, ``kz``, ``width`` are the resolved values (a method's defaults filled in by the engine).
    Numbers are normalised as the engine uses them (``eta``, ``lam``, ``B``, ``R``, ``delta``, ``S``,
    ``sigma_z``, ``rank_tol``, ``min_var`` to ``float``; ``kz_every``, ``kz_min_samples``,
    ``extra_delay`` to ``int``; ``squared``, ``share_models`` to ``bool``). Derived: ``kname``, ``ell``
    (the kernel ``K_x``'s name and lengthscale) and ``embed`` (``None`` for ``embed_kernel="kx"``, else the
    MMD kernel's name and lengthscale).
    """

    accept: str
    kz: str
    width: str
    kernel: object = None
    eta: float = 1.0
    lam: float = 1.0
    B: float = 1.0
    R: float = 0.1
    delta: float = 0.05
    S: float = 1.0
    sigma_z: float = 1.0
    squared: bool = False
    embed_kernel: object = "kx"
    n_features: int = 128
    n_embed: int = 128
    features: str = "rff"
    r_max: int | None = None
    rank_tol: float = 1e-8
    min_var: float = 0.95
    r_limit: int | None = None
    kz_every: int = 1
    extra_delay: int = 0
    path: str = "primal"
    chunk: int | None = None
    peripheral_mode: str | None = None
    kz_min_samples: int = 1
    truncation: str = "raise"
    share_models: bool = True
    dual_when_smaller: object = "auto"
    factor_updates: str = "auto"
    kname: str = field(init=False)
    ell: float = field(init=False)
    embed: tuple | None = field(init=False)

    def __post_init__(self):
        for nm, val, allowed in (("accept", self.accept, ACCEPTS), ("kz", self.kz, KZ_MODES),
                                 ("width", self.width, WIDTHS), ("path", self.path, PATHS),
                                 ("features", self.features, FEATURES), ("truncation", self.truncation, TRUNCATIONS),
                                 ("factor_updates", self.factor_updates, UPDATES)):
            check(nm, val, one_of(*allowed))
        lam, eta, sigma_z = self.lam, self.eta, self.sigma_z
        kz_every, kz_min_samples, r_max, min_var, delta = (self.kz_every, self.kz_min_samples, self.r_max,
                                                           self.min_var, self.delta)
        check("lam", lam, rule(lambda v: v is not None and v > 0, "> 0"))
        check("eta", eta, ge(0))
        check("sigma_z", sigma_z, gt(0))
        whole = rule(lambda v: isinstance(v, (int, np.integer)) and v >= 1, "an integer >= 1")
        check_all(kz_every=(kz_every, whole), kz_min_samples=(kz_min_samples, whole))
        check("r_max", r_max, optional(ge(1)))
        check("min_var", min_var, between(0, 1, "both"))
        check("delta", delta, between(0, 1))
        check("dual_when_smaller", self.dual_when_smaller, one_of(True, False, "auto"))
        check("peripheral_mode", self.peripheral_mode, optional(one_of(*PERIPHERAL_MODES)))
        kname, ell = _kernel_name(self.kernel if self.kernel is not None else {"name": "linear"})
        if self.features == "exact":
            check("path", self.path, one_of("dual"), note="features='exact'")
            check("kernel", kname, one_of("rbf"), note="features='exact'")
        embed = None if self.embed_kernel == "kx" else _kernel_name(self.embed_kernel)
        put = lambda **kw: [object.__setattr__(self, k, v) for k, v in kw.items()]  # noqa: E731 (frozen)
        put(eta=float(eta), lam=float(lam), B=float(self.B), R=float(self.R), delta=float(delta), S=float(self.S),
            sigma_z=float(sigma_z), squared=bool(self.squared), rank_tol=float(self.rank_tol), min_var=float(min_var),
            kz_every=int(kz_every), kz_min_samples=int(kz_min_samples), extra_delay=int(self.extra_delay),
            share_models=bool(self.share_models), kname=kname, ell=ell, embed=embed)
