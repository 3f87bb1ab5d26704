r"""The engine of Coop-KernelUCB and its baselines: :class:`NetworkKernelUCB` (Dubey & Pentland, ICML 2020).

Every method of :mod:`bandits.algorithms.coop_kernel_ucb` (Coop-, Eager-, Dist-KernelUCB and the
independent and naive baselines) is this class with other defaults. It is put together from parts
with one job each:

* :class:`~bandits.algorithms.coop_config.CoopConfig`: the settings, validated once;
* :mod:`bandits.algorithms.coop_features`: the feature maps of ``K_x`` and of the MMD kernel, the MMD;
* :class:`~bandits.algorithms.coop_kz.NetworkKernelFactor`: ``K̂_z`` estimated per agent and its
  truncated factor (the ``‖L_v‖²`` safeguard);
* :class:`~bandits.algorithms.coop_primal.PrimalSolver` and :class:`~bandits.algorithms.coop_dual.DualSolver`:
  the models, in feature (primal) or kernel (dual) form.

This module wires them: the graph (delays ``τ(u,v)``, acceptance sets, Dist's centres, groups of agents
that share a model), the run's state, the protocol (:meth:`NetworkKernelUCB.scores`, ``select``,
``update``: the UCB of Alg. 1 l.7 with the widths of the module docstring of
:mod:`bandits.algorithms.coop_kernel_ucb`, Dist's peripherals, the ledger's charges) and ``info()``.
The solver parts are mixins: they read the engine's settings and state as attributes.
"""
from __future__ import annotations

from itertools import chain

import numpy as np

from ..comm import CommLedger
from ..network import CumulativeStatsBuffer, check_gamma, deliveries_per_round, usable_delays
from ..sim import Policy
from .coop_config import CoopConfig
from .coop_dual import DualSolver
from .coop_features import NystroemFeatures, feature_maps, method_seed
from .coop_kz import NetworkKernelFactor
from .coop_primal import PrimalSolver
from .kernel_ucb import argmax_ties_rows
from ..validation import check, fail, one_of, rule

__all__ = ["NetworkKernelUCB"]


class NetworkKernelUCB(NetworkKernelFactor, PrimalSolver, DualSolver, Policy):
    """The shared engine of every method of :mod:`bandits.algorithms.coop_kernel_ucb` (its module docstring
    describes the algorithm; this module's, the parts). The settings are checked once by
    :class:`~bandits.algorithms.coop_config.CoopConfig` (kept as ``self.config``).

    Args:
        n_agents, horizon, dim, seed, ledger: as :class:`bandits.sim.Policy`.
        network: the graph summary (``dist`` (V,V) hops, ``gamma``, ``clique_of`` (V,),
            ``centres`` (n_c,), ``centre_of`` (V,)); may be ``None`` only for ``accept="self"``.
        kz_oracle: (V, V) true ``K_z`` (only with ``kz="oracle"``).
        kernel: ``{"name": "linear"}`` or ``{"name": "rbf", "lengthscale": ℓ_x}`` (``K_x``).
        accept: ``"clique"`` | ``"neighbourhood"`` | ``"self"``.
        kz: ``"mmd"`` | ``"oracle"`` | ``"ones"``.
        eta: exploration parameter η (``width="eta"``).
        lam: regulariser λ.
        width: ``"eta"`` | ``"theory"`` | ``"igp"`` | ``"oful"``.
        B, R, delta, S: constants of the theoretical widths.
        sigma_z, squared: Eq. 11 bandwidth and the squared-distance option.
        embed_kernel: ``"kx"`` or ``{"name": "rbf", "lengthscale": ℓ}`` (MMD kernel ``k_P``).
        n_features, n_embed: RFF dimensions for ``K_x`` and ``k_P`` (RBF only).
        features: ``"rff"`` (default), ``"nystroem"`` (:class:`NystroemFeatures`: ``n_features``
            landmarks on the unit sphere; unit-norm contexts only) or ``"exact"`` (exact RBF; dual
            path only).
        r_max, rank_tol, min_var, r_limit: truncation of ``K̂_z`` (``r_max=None``: numerical rank).
        dual_when_smaller: on the primal path, solve a model in dual form with ``W̃ = L Lᵀ`` while it
            has fewer visible observations than features (:mod:`bandits.algorithms.coop_primal`).
        share_models: compute one model per group of agents with identical ``(Accept_v, τ(·, v))``
            (primal path; :mod:`bandits.algorithms.coop_primal`).
        truncation: ``"raise"`` (default: raise ``r`` until ``‖L_v‖² ≥ min_var·W_vv``, at most ``r_limit``)
            or ``"own_residual"`` (keep ``r ≤ r_max``/``r_limit`` and add the agent's own residual column);
            :mod:`bandits.algorithms.coop_kz`.
        kz_every: ``K̂_z`` refresh period (rounds).
        kz_min_samples: with ``kz="mmd"``, a source enters an agent's ``K̂_z`` (and so its model) once
            this many of its samples are visible to the agent (default 1: the paper's algorithm;
            :mod:`bandits.algorithms.coop_kz`).
        extra_delay: 0 or 1 (:mod:`bandits.network`).
        path: ``"primal"`` | ``"dual"``.
        chunk: agents per batch (``None``: automatic by memory; 1: per-agent loop).
    """

    needs_network = True
    name = "NetworkKernelUCB"
    default_accept, default_kz, default_width = "neighbourhood", "mmd", "eta"

    @classmethod
    def env_params(cls, env, params: dict) -> dict:
        """The constructor parameters on ``env`` (:func:`bandits.runner.run_regret_cell`): ``params`` with
        the environment's graph ``network=env.network`` and, when ``params["kz"] == "oracle"``, the true
        task kernel ``kz_oracle=env.kz_true``."""
        params = dict(params, network=env.network)
        if params.get("kz") == "oracle":
            params["kz_oracle"] = env.kz_true
        return params

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, network=None, kz_oracle=None,
                 kernel=None, accept=None, kz=None, eta=1.0, lam=1.0, width=None, B=1.0, R=0.1,
                 delta=0.05, S=1.0, sigma_z=1.0, squared=False, embed_kernel="kx", n_features=128,
                 n_embed=128, features="rff", r_max=None, rank_tol=1e-8, min_var=0.95, r_limit=None,
                 kz_every=1, extra_delay=0, path="primal", chunk=None, peripheral_mode=None, kz_min_samples=1,
                 truncation="raise", share_models=True, dual_when_smaller="auto", factor_updates="auto"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        cfg = CoopConfig(
            accept=self.default_accept if accept is None else accept, kz=self.default_kz if kz is None else kz,
            width=self.default_width if width is None else width, kernel=kernel, eta=eta, lam=lam, B=B, R=R,
            delta=delta, S=S, sigma_z=sigma_z, squared=squared, embed_kernel=embed_kernel, n_features=n_features,
            n_embed=n_embed, features=features, r_max=r_max, rank_tol=rank_tol, min_var=min_var, r_limit=r_limit,
            kz_every=kz_every, extra_delay=extra_delay, path=path, chunk=chunk, peripheral_mode=peripheral_mode,
            kz_min_samples=kz_min_samples, truncation=truncation, share_models=share_models,
            dual_when_smaller=dual_when_smaller, factor_updates=factor_updates)
        self.config = cfg
        # the settings the parts read, as attributes (validated and normalised by CoopConfig)
        for k in ("accept", "kz", "width", "path", "eta", "lam", "B", "R", "delta", "S", "sigma_z", "squared",
                  "r_max", "rank_tol", "min_var", "r_limit", "kz_every", "chunk", "kz_min_samples", "truncation",
                  "factor_updates", "share_models", "dual_when_smaller", "peripheral_mode", "extra_delay",
                  "kname", "ell", "features"):
            setattr(self, k, getattr(cfg, k))
        self._eig_pairs = cfg.r_limit  # eigenpairs of K̂_z the factor needs (None: all; see _top_eigh)
        self._wire_network(network)
        # --- kernels and feature maps (drawn once per run from the method-independent key) --------
        self.phi, self.phi_p = feature_maps(cfg, dim, seed)
        self.D = self.phi.D
        self.rng = np.random.default_rng(method_seed(seed, "coop-ties"))
        # --- network kernel ---------------------------------------------------------------
        V = self.N
        if cfg.kz == "oracle":
            check("kz_oracle", kz_oracle, rule(lambda k: k is not None, "the true K_z"),
                  note="kz='oracle'; env_params passes env.kz_true")
            self.W_oracle = check("kz_oracle", np.asarray(kz_oracle, dtype=float),
                                  rule(lambda W: W.shape == (V, V), f"a ({V}, {V}) array"))
        self._init_state(horizon, dim)

    def _wire_network(self, network) -> None:
        """Delays, acceptance sets, Dist's centres and the shared-model groups from the graph."""
        V, accept, truncation, path = self.N, self.accept, self.truncation, self.path
        peripheral_mode = self.peripheral_mode
        # --- network, delays, acceptance -------------------------------------------------
        if network is None:
            check("accept", accept, one_of("self"), note=f"{self.name} without a network; env_params passes env.network")
            dist, self.gamma = np.where(np.eye(V, dtype=bool), 0, -1), 1
        else:
            dist, self.gamma = np.asarray(network.dist, dtype=np.int64), check_gamma(network.gamma)
            check("network.dist", dist, rule(lambda a: a.shape == (V, V), f"a ({V}, {V}) array"))
        self.network, self.dist = network, dist
        self.tau = usable_delays(dist, self.gamma, self.extra_delay).T  # tau[v, u]: viewer v, source u
        acc = self.tau > 0
        if accept == "self":
            acc = np.eye(V, dtype=bool)
        elif accept == "clique":
            cl = np.asarray(network.clique_of)
            acc &= cl[:, None] == cl[None, :]
        self.dist_mode = peripheral_mode is not None
        if self.dist_mode:
            self.centre_of = np.asarray(network.centre_of, dtype=np.int64)
            self.is_centre = self.centre_of == np.arange(V)
            # peripherals learn on their own data only (their fallback KernelUCB)
            acc[~self.is_centre] = np.eye(V, dtype=bool)[~self.is_centre]
            self.delta_c = dist[np.arange(V), self.centre_of]
            check("network.centre_of", network.centre_of,
                  rule(lambda _: not (np.any(self.delta_c < 0) or np.any(self.delta_c > self.gamma)),
                       "a centre within gamma hops of every peripheral"))
        self.acc = acc
        self.tau_acc = np.where(acc, self.tau, 0)
        self.tau_max = int(self.tau_acc.max())
        self.delay_levels = [int(x) for x in np.unique(self.tau_acc[self.tau_acc > 0])]
        # padded accept lists, the agent itself first
        lists = [[v] + [int(u) for u in np.flatnonzero(acc[v]) if u != v] for v in range(V)]
        self.Amax = max(len(x) for x in lists)
        self.idx = np.full((V, self.Amax), -1, dtype=np.int64)
        for v, lst in enumerate(lists):
            self.idx[v, : len(lst)] = lst
        # agents with identical (Accept_v, τ(·, v)) see the same data with the same delays and, with
        # K̂_z estimated from what each has seen, the same network kernel: one model per group
        # (a choice of this package, :mod:`bandits.algorithms.coop_primal`). The agent's own residual
        # column (truncation="own_residual") is agent-specific, so that mode keeps one model per agent.
        if self.share_models and truncation == "raise" and path == "primal":
            _, first, grp = np.unique(self.tau_acc, axis=0, return_index=True, return_inverse=True)
            self.rep_of = first[np.asarray(grp).reshape(-1)]
        else:
            self.rep_of = np.arange(V)
        self.reps = np.unique(self.rep_of)
        self.members = {int(c): np.flatnonzero(self.rep_of == c) for c in self.reps}
        # position of each agent in its representative's accept list
        self.pos_in_rep = np.array([int(np.flatnonzero(self.idx[self.rep_of[v]] == v)[0]) for v in range(V)])

    def _init_state(self, horizon: int, dim: int) -> None:
        """The run's state: statistics ring, histories, factor slots, the log and the ledger's counts."""
        V, dist, acc = self.N, self.dist, self.acc
        self.stats = CumulativeStatsBuffer({"M": (self.D, self.D), "b": (self.D,), "E": (self.phi_p.D,)},
                                           V, self.tau_max + 1)
        self.Xhist = np.zeros((horizon, V, dim))
        self.yhist = np.zeros((horizon, V))
        self.choice_hist = np.zeros((horizon, V), dtype=np.int64)
        self.L = None  # (V, V, R) dense factor rows, L[v, u] = row of source u in v's factor
        self.W_dual = None  # (V, V, V) dual path: agent v's network kernel, dense over sources
        self.snapshots: dict[int, dict] = {}  # round -> {centre: its model at that round}
        # incremental primal path: per model (representative) [lower factor (p, p) C order, b_p, round]
        self._inc: dict[int, list] = {}
        self._inc_src: dict[int, tuple] = {}  # per model, since the last refresh: sources in its factor
        self._pools: dict[int, np.ndarray] = {}  # rank -> (G, p, p) factor storage (see _pool)
        self._slot = {int(c): g for g, c in enumerate(self.reps)}
        depth = self.tau_max + 1  # the observations of the last τ_max rounds: features and rewards
        self._Fring, self._yring = np.zeros((depth, V, self.D)), np.zeros((depth, V))
        self.log = {"rank_mean": [], "rank_max": [], "min_Lv2": [], "accepted_deliveries": 0,
                    "updates": 0, "rebuilds": 0, "capped": 0, "rank_last": None, "min_Lv2_last": None}
        self._warned_cap = False
        self._deliv = deliveries_per_round(dist, self.gamma, horizon) if self.accept != "self" else None
        self.msg_scalars = dim + 3
        if self.accept != "self":
            self._accepted_per_round = deliveries_per_round(np.where(acc, dist, -1), self.gamma, horizon)
        if self.dist_mode:
            cent = np.flatnonzero(self.is_centre)
            self.centres = cent
            dc = dist[cent]
            self._centre_hops = np.stack([np.bincount(row[(row >= 1) & (row <= self.gamma)],
                                                      minlength=self.gamma + 1) for row in dc])


    def _phi_arms(self, arms) -> np.ndarray:
        """(V, K, D) features of every agent's decision set (computed once when the set is shared)."""
        X = np.asarray(arms.X, dtype=float)
        if arms.shared:
            return np.broadcast_to(self.phi(X), (self.N, X.shape[0], self.D))
        if X.shape[0] != self.N:
            raise ValueError(f"{self.name} is synchronous: expected the decision sets of all {self.N} agents, "
                             f"got {X.shape[0]}")
        return self.phi(X.reshape(-1, X.shape[-1])).reshape(self.N, X.shape[1], self.D)

    def _ucb(self, mu, var, logdet):
        var = np.maximum(var, 0.0)
        if self.width == "eta":
            return mu + self.eta / np.sqrt(self.lam) * np.sqrt(var)
        if self.width in ("theory", "igp"):
            logv = np.log(self.N / self.delta) if self.width == "theory" else np.log(1.0 / self.delta)
            beta = self.B + self.R * np.sqrt(2.0 * (0.5 * logdet + 1.0 + logv))
            return mu + beta * np.sqrt(var)
        beta = self.R * np.sqrt(2.0 * (0.5 * logdet + np.log(1.0 / self.delta))) + np.sqrt(self.lam) * self.S
        return mu + beta * np.sqrt(var / self.lam)

    def scores(self, t: int, arms) -> list[np.ndarray]:
        """UCB scores of every agent's decision set at round ``t ≥ 1`` (list of (K,) arrays)."""
        V = self.N
        if self._refresh_due(t):
            self._factor(t)
            self._inc.clear()  # a new factor of K̂_z: every primal model is rebuilt
            self._inc_src.clear()
            used = set(int(x) for x in self.r[self.reps])
            self._pools = {r: a for r, a in self._pools.items() if r in used}
            self.__dict__.pop("_ws", None)  # the primal solver's workspaces, sized for the old ranks
            if self.path == "dual":
                self.W_dual = self._W_dual(t)
        elif t % self.kz_every == 0:
            self._inc.clear()  # a fixed K_z: rebuilt on the same schedule (bounds the updates' round-off)
        out = [None] * V
        keep = set(self.centres.tolist()) if self.dist_mode else set()
        snap = {}
        if self.path == "primal":
            small = self._dual_smaller(t, len(arms.for_agent(0))) if self.dual_when_smaller \
                else np.zeros(len(self.reps), dtype=bool)
            for c in self.reps[small]:
                # the same (truncated) model in dual form: W̃ = L Lᵀ, fewer observations than features
                c = int(c)
                Lf = self.L[c, :, : int(self.r[c])]
                Wt = Lf @ Lf.T
                model = self._dual_model(c, t, Wt, sources=np.flatnonzero(self.acc[c] & np.any(Lf != 0, axis=1)))
                for v in self.members[c]:
                    out[v] = self._scores_dual(model, Wt, v, arms.for_agent(v))
                    if v in keep:
                        snap[int(v)] = (model, Wt)
            upd, reb = self._split_updates(t, self.reps[~small])
            # every agent's arms through the feature map at once; per model one triangular solve for
            # all its members' arms; the UCB of every primal-scored agent in one vectorised step
            Phi = self._phi_arms(arms)  # (V, K, D)
            Kn = Phi.shape[1]
            mu, var, ldv = np.zeros((V, Kn)), np.zeros((V, Kn)), np.zeros((V, 1))
            done = np.zeros(V, dtype=bool)
            for ag, Lc, w, ld in chain(self._primal(t, reb), self._update(t, upd)):
                # the chunk's models share one rank r (p = r·D): their members at once
                mems = [self.members[int(c)] for c in ag]
                sizes = np.array([len(m) for m in mems])
                vs = np.concatenate(mems)
                rv = int(self.r[ag[0]])  # members share their representative's factor and rank
                mu[vs], var[vs] = self._primal_mu_var(Lc, w, sizes, self.L[vs, vs, :rv], Phi[vs])
                ldv[vs, 0], done[vs] = np.repeat(np.asarray(ld), sizes), True
                for i, c in enumerate(ag):
                    for v in mems[i]:
                        if v in keep:  # a copy: the factor is updated in place in the next rounds
                            snap[int(v)] = (Lc[i].copy(), w[i], ld[i], self.L[v, :, :rv].copy())
            if done.any():
                ucb = self._ucb(mu[done], var[done], ldv[done])
                for v, s_v in zip(np.flatnonzero(done), ucb):
                    out[v] = s_v
        else:
            for v in range(V):
                W = self.W_dual[v]
                model = self._dual_model(v, t, W)
                out[v] = self._scores_dual(model, W, v, arms.for_agent(v))
                if v in keep:
                    snap[v] = (model, W)
        if self.dist_mode:
            self.snapshots[t] = snap
            self.snapshots.pop(t - self.tau_max - 1, None)
            self._dist_scores(t, arms, out, Phi if self.path == "primal" else None)
        return out

    def _dist_scores(self, t, arms, out, Phi=None):
        """Peripherals imitate their centre's model of round t − Δ (copy_policy); ``Phi``: the
        (V, K, D) arm features when :meth:`scores` computed them."""
        if self.peripheral_mode != "copy_policy":
            return
        batch: dict[tuple[int, int], list] = {}  # (snapshot round, centre) -> peripherals (primal form)
        for p in np.flatnonzero(~self.is_centre):
            c, Dl = int(self.centre_of[p]), int(self.delta_c[p])
            if t < Dl or (t - Dl) not in self.snapshots:
                continue
            snap = self.snapshots[t - Dl][c]
            if len(snap) == 4:
                if not np.any(snap[3][p]):
                    continue  # p's data had not reached c yet: keep p's own KernelUCB
                batch.setdefault((t - Dl, c), []).append(int(p))
            else:
                model, W = snap
                if W[p, p] == 0:
                    continue
                out[p] = self._scores_dual(model, W, p, arms.for_agent(p))
        if batch and Phi is None:
            Phi = self._phi_arms(arms)
        for (s, c), ps in batch.items():
            Lc, w, ld, Lrows = self.snapshots[s][c]
            mu, var = self._primal_mu_var([Lc], [w], [len(ps)], Lrows[ps], Phi[ps])
            for p, s_p in zip(ps, self._ucb(mu, var, ld)):
                out[p] = s_p

    def select(self, t, agents, arms):
        V = self.N
        if len(agents) != V:
            raise ValueError(f"{self.name} is synchronous: all {V} agents act every round (got {len(agents)})")
        K = arms.for_agent(0).shape[0]
        if t == 0:
            return self.rng.integers(K, size=V)  # Alg. 1 l.5: Random(D_{v,1})
        sc = self.scores(t, arms)
        ch = argmax_ties_rows(sc, self.rng)  # the row-by-row tie rule, vectorised where a row has no tie
        if self.dist_mode and self.peripheral_mode != "copy_policy":
            for p in np.flatnonzero(~self.is_centre):
                c, Dl = int(self.centre_of[p]), int(self.delta_c[p])
                if t < Dl:
                    continue
                if self.peripheral_mode == "copy_arm":
                    if not arms.shared:
                        fail("peripheral_mode", self.peripheral_mode, one_of("copy_policy", "nearest_arm"),
                             note="'copy_arm' needs a shared fixed decision set")
                    ch[p] = self.choice_hist[t - Dl, c]
                else:
                    xc = self.Xhist[t - Dl, c]
                    ch[p] = int(np.argmin(np.sum((arms.for_agent(p) - xc) ** 2, axis=1)))
        return ch

    def update(self, t, agents, arms, choices, rewards):
        V = self.N
        X = np.stack([arms.for_agent(k)[choices[k]] for k in range(V)])
        y = np.asarray(rewards, dtype=float)
        self.Xhist[t], self.yhist[t], self.choice_hist[t] = X, y, choices
        if self.features == "nystroem" and self.kname == "rbf":
            NystroemFeatures.check(X)
        F = self.phi(X)
        self.stats.push(t, M=F[:, :, None] * F[:, None, :], b=y[:, None] * F, E=self.phi_p(X))
        self._Fring[t % len(self._Fring)], self._yring[t % len(self._yring)] = F, y
        if self.accept != "self":
            self.ledger.deliver(t, int(self._deliv[t]), self.msg_scalars, "observation")
            self.log["accepted_deliveries"] += int(self._accepted_per_round[t])
            if self.dist_mode and self.peripheral_mode == "copy_policy" and self.L is not None:
                hops = np.cumsum(self._centre_hops, axis=1)[:, min(self.gamma, t + 1)]
                n_per = np.bincount(self.centre_of[~self.is_centre], minlength=V)[self.centres]
                for h, k, R in zip(hops, n_per, self.r[self.centres]):  # each centre's own rank
                    p = int(R) * self.D
                    if h:
                        self.ledger.deliver(t, int(h), int(p + p * (p + 1) // 2 + int(R) * k), "model_snapshot")

    def info(self):
        return {"rank_mean": float(np.mean(self.log["rank_mean"])) if self.log["rank_mean"] else None,
                "rank_max": int(max(self.log["rank_max"])) if self.log["rank_max"] else None,
                "min_Lv2": float(min(self.log["min_Lv2"])) if self.log["min_Lv2"] else None,
                "rank_last": self.log["rank_last"], "min_Lv2_last": self.log["min_Lv2_last"],
                "r_limit": None if self.r_limit is None else int(self.r_limit),
                "capped_agent_refreshes": int(self.log["capped"]),
                "accepted_deliveries": int(self.log["accepted_deliveries"]),
                "gamma": int(self.gamma), "accept_size_mean": float(self.acc.sum(1).mean())}

