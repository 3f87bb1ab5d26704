"""The papers this package reproduces, each declared once (the manifest).

One :class:`Paper` per paper, and one entry for the arena (the package's own hypotheses, no paper): its
name, title, authors, venue, a link to the paper, the paper's text file (``../shared/papers/<text>``, outside
the repository), its notebooks (``notebooks/<nb>.py``; each writes ``figures/<nb>/``), its site page
(``docs/papers/<slug>.md``), its figures in the paper's order with their captions, and its deviations
from the paper (one short text per deviation, each tied to a section of the paper).

Everything that needs to know the set of papers reads :data:`PAPERS`: the report (``CLAIMS.md``, the
README's summary, the site: ``python -m bandits.report``), ``tools/recompute_claims.py`` (its folders are
checked against :func:`folders`), ``tests/test_claims_quotes.py`` (each folder's paper text,
:func:`text_of_folder`) and the experiments registry (``bandits.experiments.EXPERIMENTS``, one entry per
notebook; ``tests/test_papers.py`` checks that the two agree). Adding a paper is adding an entry here
(``docs/adding_a_paper.md``).

A figure's caption says what it shows and which figure of the paper it reproduces; a result it shows is
stated by the claims (``figures/<nb>/claims.json``), never in the caption. A figure's ``panels`` tie claims
to the panel that shows their evidence: ``(regex on the claim id, panel name)``, the first match wins; a
claim that no figure names links to its notebook only.

This module is data: it imports nothing of the package, and the run cache's key leaves it out
(``bandits.runner.NOT_IN_RUNS``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Figure", "Deviation", "Paper", "PAPERS", "by_name", "by_slug", "paper_of_notebook", "folders",
           "text_of_folder"]


@dataclass(frozen=True)
class Figure:
    """One committed image: ``file`` relative to ``figures/`` (``"duets/fig1.png"``), its caption, and the
    claims whose evidence it shows, by panel (``panels``: ``(regex on the claim id, panel name)``)."""

    file: str
    caption: str
    panels: tuple[tuple[str, str], ...] = ()

    @property
    def notebook(self) -> str:
        return self.file.split("/", 1)[0]

    def panel_of(self, claim_id: str) -> str | None:
        """The panel (its name) showing claim ``claim_id``'s evidence, or None when this figure does not."""
        for pattern, panel in self.panels:
            m = re.search(pattern, claim_id)
            if m:
                return m.expand(panel)  # "\\1" in the name: the pattern's first group
        return None


@dataclass(frozen=True)
class Deviation:
    """One way this package departs from the paper, or fills a gap in it: the paper's ``section`` and a
    short ``text`` (a choice and its reason; results belong to the claims)."""

    section: str
    text: str


@dataclass(frozen=True)
class Paper:
    """A paper (or, with ``kind="arena"``, the package's own comparison) and everything the report needs."""

    name: str
    slug: str
    title: str
    authors: str
    venue: str
    url: str | None
    text: str | None  # file name under ../shared/papers/ (None: no paper)
    notebooks: tuple[str, ...]
    summary: str  # one sentence: what the paper claims, what the notebooks reproduce
    figures: tuple[Figure, ...] = ()
    deviations: tuple[Deviation, ...] = ()
    kind: str = "paper"  # "paper" or "arena" (no paper: its claims are the package's hypotheses)
    extra_folders: tuple[str, ...] = field(default=())  # figures/ folders beside the notebooks' own

    @property
    def page(self) -> str:
        """The site page, relative to ``docs/`` and without suffix."""
        return f"papers/{self.slug}"

    @property
    def folders(self) -> tuple[str, ...]:
        """The ``figures/`` folders this paper's claims come from (one per notebook)."""
        return self.notebooks + self.extra_folders

    @property
    def short(self) -> str:
        """``name (authors, venue)`` for tables."""
        return f"{self.name} ({self.authors}; {self.venue})" if self.kind == "paper" else self.name


_S = "shared/papers"

PAPERS: tuple[Paper, ...] = (
    Paper(
        name="DUETS", slug="duets",
        title="Order-Optimal Regret in Distributed Kernel Bandits using Uniform Sampling with Shared Randomness",
        authors="Nikola Pavlovic, Sudeep Salgia, Qing Zhao",
        venue="arXiv:2402.13182, 2024 (AISTATS 2025, PMLR 258)",
        url="https://arxiv.org/abs/2402.13182",
        text="duets.txt", notebooks=("duets", "duets_theory"),
        summary=("Distributed kernel bandits with an uplink of a few scalars per epoch: the paper claims that DUETS "
                 "has lower regret than DisKernelUCB, Approx-DisKernelUCB and N-KernelUCB on h1, h2, Branin and "
                 "Hartmann-4 with less communication (Figure 1), and proves Theorem 4.1 and Lemmas 4.2–4.5, "
                 "A.2–A.3."),
        figures=(
            Figure("duets/fig1.png",
                   "Reproduces the paper's Figure 1 (a)–(h): cumulative regret (top row) and communication in the "
                   "paper's unit (Eq. 2, per agent, uplink and downlink; bottom row) against time, for DUETS, "
                   "DisKernelUCB, Approx-DisKernelUCB and N-KernelUCB on h1, h2, Branin and Hartmann-4; mean ± 1 s.d. "
                   "over runs, each method at its tuned β.",
                   panels=((r"^fig1-regret-(\w+)$", r"regret, \1"), (r"^fig1-comm-(?!code)(\w+)$", r"communication, \1"))),
            Figure("duets/fig1_code_convention.png",
                   "The same runs as Figure 1, communication counted as the authors' code counts it (total uplink "
                   "summed over agents, downlink ignored); not a figure of the paper.",
                   panels=((r"^fig1-comm-code-(\w+)$", r"\1"),)),
            Figure("duets/beta_grid.png",
                   "Final regret R(T) of every method at every β of the paper's grid {0.2, 0.5, 1, 2, 5} (§5), "
                   "mean ± s.d.: the grid the tuned β of Figure 1 is picked from; not a figure of the paper."),
            Figure("duets/duets_variants.png",
                   "DUETS as the paper states it beside the two choices of the authors' code run as named variants "
                   "(`DUETS [code p_j]`: the code's inducing probability; `DUETS [code trim]`: the code's "
                   "elimination rule): regret against communication on the four functions; not a figure of the "
                   "paper."),
            Figure("duets_theory/e1_e2_scaling.png",
                   "Theorem 4.1 and the communication bound: regret and communication against N·T on log–log axes "
                   "with fitted slopes (checks E1, E2); not a figure of the paper.",
                   panels=((r"^E1-", "regret"), (r"^E2-", "communication"))),
            Figure("duets_theory/e3_e4.png",
                   "Lemma 4.3: the largest posterior variance σ²_max against γ̂_n / n (E3), and Lemmas A.2–A.3: the "
                   "accuracy of the Nyström inducing sets (E4); not a figure of the paper.",
                   panels=((r"^E3-", "E3"), (r"^E4-", "E4"))),
            Figure("duets_theory/e5_inducing_sets.png",
                   "Lemma 4.5: inducing-set size per epoch against its bound (E5), and the epoch counts (E6); not a "
                   "figure of the paper.",
                   panels=((r"^E5-", "E5"), (r"^E6-", "E6"))),
            Figure("duets_theory/e8_superposition.png",
                   "The superposition argument of the proof: DUETS against one centralised learner drawing N·T_j "
                   "points per epoch (E8); not a figure of the paper.",
                   panels=((r"^E8-", "E8"),)),
        ),
        deviations=(
            Deviation("§5", "The paper does not give λ, the candidate sets, how regret is measured on a continuous "
                            "domain, nor how β is picked from its grid: each is this package's choice (module "
                            "docstring of `bandits.experiments.duets`); β is tuned per method on runs apart from the "
                            "ones the claims are tested on."),
            Deviation("§2, Eq. 2", "Communication is counted in the paper's unit (per agent, uplink and downlink); "
                                   "the authors' code counts the total uplink only, and both units are shown "
                                   "(`fig1-comm-*` and `fig1-comm-code-*`)."),
            Deviation("Algorithm 1 (inducing probability)", "The paper's p_j = min(1, p₀ σ²_{j,max}) with p₀ = 10 is "
                      "the default; the authors' code's p_j = 4 log(N T_j)/(N T_j) runs beside it as "
                      "`DUETS [code p_j]`."),
            Deviation("Algorithm 1, Eq. 9 (elimination)", "The paper's trim rule is the default; the code's rule "
                      "(keep x if UCB(x) ≥ max LCB with the Nyström σ̃) needs the s × s posterior precision at every "
                      "agent, which is downlinked and charged here (`DUETS [code trim]`)."),
        ),
    ),
    Paper(
        name="CoPE-KB", slug="cope_kb", title="Collaborative Pure Exploration in Kernel Bandit",
        authors="Yihan Du, Wei Chen, Yuko Kuroki, Longbo Huang", venue="ICLR 2023",
        url="https://openreview.net/forum?id=hLbeJ6jObDD",
        text="cope-kb.txt", notebooks=("cope_kb", "cope_theory"),
        summary=("Collaborative pure exploration in kernel bandits: the paper's CoKernelFC and CoKernelFB reach the "
                 "V-agent speedup in samples and error when tasks are similar (Figures 2 and 3), with Theorems 1–4 "
                 "bounding samples, error and rounds."),
        figures=(
            Figure("cope_kb/fig2.png",
                   "Reproduces the paper's Figure 2 (a)–(c): samples per agent against the smallest gap Δ_min "
                   "(fixed confidence) for CoKernelFC, the IndAlloc ablation in both readings, IndRAGE, IndRAGE/V, "
                   "IndALBA and IndPolyALBA, at task-similarity rank 1, 2 and V; mean with 95 % intervals, the "
                   "sample-size constant of the RAGE code.",
                   panels=((r"^fig2a-", "(a) rank 1"), (r"^fig2b-", "(b) rank 2"), (r"^fig2c-", "(c) rank V"),
                           (r"rank1$", "(a) rank 1"), (r"rank2$", "(b) rank 2"), (r"^fig2-", "(a)–(c)"))),
            Figure("cope_kb/fig2_theory_constants.png",
                   "Figure 2 again with the paper's sample-size constant 32(1+ε)² for every RAGE-family method "
                   "(the figure above uses the RAGE code's 2(1+ε)); not a figure of the paper."),
            Figure("cope_kb/fig3.png",
                   "Reproduces the paper's Figure 3 (a)–(c): error probability against the budget T (fixed budget, "
                   "Δ_min = 0.02) for CoKernelFB, its IndAlloc ablation, IndPeaceFB (per round and pooled) and "
                   "IndUniformFB at rank 1, 2 and V; the bottom row (not in the paper) shows the share of the budget "
                   "each method spends.",
                   panels=((r"^fig3c-", "(c) rank V"), (r"rank1$", "(a) rank 1"), (r"rank2$", "(b) rank 2"),
                           (r"^fig3-budget", "bottom row"), (r"^fig3-", "(a)–(c)"), (r"^C8-", "(a)–(c)"))),
            Figure("cope_theory/c1_speedup_vs_similarity.png",
                   "Corollary 1 and Remark 2: per-agent sample complexity against the number of task groups g and "
                   "the number of agents V, and the effect of the regulariser ξ (checks C1, C2, C6); not a figure "
                   "of the paper.",
                   panels=((r"^C1-", "C1"), (r"^C2-", "C2"), (r"^C6-", "C6"))),
        ),
        deviations=(
            Deviation("§6 (experiments)", "The Δ grid, the budget grid, Δ_min = 0.02 for Figure 3, ξ = 1e-6 and the "
                                          "instances' features are this package's choices; the paper does not give "
                                          "them."),
            Deviation("§6, Algorithm 1 (sample-size constant)", "The figures use the RAGE code's constant 2(1+ε) for "
                      "every RAGE-family method; the paper's 32(1+ε)² is drawn beside it "
                      "(`fig2_theory_constants.png`), since the baseline ordering depends on it."),
            Deviation("§6 (CoKernel-IndAlloc)", "The paper describes the IndAlloc ablation in one sentence; both "
                      "readings run: A, the average of the agents' local designs, and B, each agent's own design with "
                      "data shared."),
            Deviation("§6 (IndPolyALBA)", "IndPolyALBA is a reconstruction (ALBA with a uniform design on a spanning "
                      "subset): the paper describes it in one sentence and no code is public; the legend says so."),
            Deviation("Algorithm 2 (IndPeaceFB)", "IndPeaceFB runs as Algorithm 2 is written (each round's data only) "
                      "and, as a second curve, with its data pooled over rounds."),
        ),
    ),
    Paper(
        name="Async-KernelUCB", slug="async_kernelucb",
        title="Learning Kernelized Contextual Bandits in a Distributed and Asynchronous Environment",
        authors="Chuanhao Li, Huazheng Wang, Mengdi Wang, Hongning Wang", venue="ICLR 2023",
        url="https://openreview.net/forum?id=-G1kjTFsSs",
        text="async-kernelucb.txt", notebooks=("async_kernelucb", "async_theory"),
        summary=("Asynchronous federated kernel bandits with Nyström statistics: the paper claims that "
                 "Async-KernelUCB reaches the regret of its kernel rivals at a fraction of their communication on "
                 "six environments (Figure 2), with a dictionary size and communication cost bounded by its "
                 "lemmas."),
        figures=(
            Figure("async_kernelucb/fig2.png",
                   "Reproduces the paper's Figure 2: cumulative regret and cumulative communication (scalars) "
                   "against time on f1, f2, MagicTelescope, Mushroom, MovieLens and Yelp for Async-KernelUCB, "
                   "Approx-DisKernelUCB, OneKernelUCB, N-KernelUCB and the linear and GLB methods, with random "
                   "play's expected regret; mean over runs.",
                   panels=((r"-regret-(\w+)$", r"regret, \1"), (r"-comm-(\w+)$", r"communication, \1"),
                           (r"^fig2-extremes-(\w+)$", r"\1"))),
            Figure("async_kernelucb/tradeoff.png",
                   "Final regret against final communication per environment, every method of Figure 2 one point "
                   "(the trade-off the paper's §5.2 describes in words); not a figure of the paper."),
            Figure("async_kernelucb/gamma_sensitivity.png",
                   "Regret against communication over the kernel width γ_k and the dictionary parameter q on f1 and "
                   "MagicTelescope, with Figure 2's methods as references; not a figure of the paper."),
            Figure("async_theory/c1_dictionary.png",
                   "Lemma 4.1: the dictionary size against its bound and the effective dimension (C1); not a figure "
                   "of the paper.", panels=((r"^C1-", "C1"),)),
            Figure("async_theory/c4_communications.png",
                   "Lemma D.1: the number of exchanges and the communication against the threshold D (C4); not a "
                   "figure of the paper.", panels=((r"^C4-", "C4"),)),
            Figure("async_theory/c5_tradeoff.png",
                   "The regret–communication trade-off of Async-KernelUCB against Approx-DisKernelUCB over D (C5); "
                   "not a figure of the paper.", panels=((r"^C5-", "C5"),)),
            Figure("async_theory/c6_c7_scaling.png",
                   "Scaling with the number of clients N at D = 1/N² (C6) and regret growth with T (C7); not a "
                   "figure of the paper.", panels=((r"^C6-", "C6"), (r"^C7-", "C7"))),
            Figure("async_theory/c2_c8_c9_c10.png",
                   "Dictionary accuracy (C2), staleness (C8), coverage (C9) and stragglers (C10); not a figure of "
                   "the paper.", panels=((r"^C2-", "C2"), (r"^C8-", "C8"), (r"^C9-", "C9"), (r"^C10-", "C10"))),
        ),
        deviations=(
            Deviation("§5 (tuning)", "The paper's grid search (γ_k, α ∈ {0.1, 1, 4}) runs on 3 runs of T = 2000 per "
                      "setting, seeds apart from the figure's; a kernel method keeps its own γ_k only if it beats "
                      "every other γ_k in a paired comparison, else every kernel method of that environment gets one "
                      "common γ_k (`selected.csv`). The rule was fixed before the runs."),
            Deviation("§5 (memory)", "A Nyström setting whose tuning dictionary holds more than 60 % of its points is "
                      "not run at T = 10⁴ (not in the paper: the clients' factors would not fit in memory)."),
            Deviation("§5.2 (compound claims)", "Each half of a compound sentence of §5.2 is a claim of its own "
                      "(regret and communication). The communication half against the linear methods compares with "
                      "OneKernelUCB's broadcast of every raw point (the paper names no comparator: our reading); "
                      "“much smaller communication” is a ratio of means < 0.5 and “comparable regret” a ratio "
                      "≤ 1.2, fixed before the runs."),
            Deviation("§5 (runs)", "OneKernelUCB runs 3 of the paper's 10 runs on the four fresh-context "
                      "environments (its exact posterior is costly); paired claims pair on the runs both methods "
                      "have."),
            Deviation("§5 (Approx-DisKernelUCB's trigger)", "The paper states no trigger for this baseline: Figure "
                      "2's variance-sum trigger is used in the theory notebook's C5 as well; the linear simulator's "
                      "log-det trigger stays available (`approx_trigger=\"dislinucb_logdet\"`)."),
        ),
    ),
    Paper(
        name="Coop-KernelUCB", slug="coop_kernelucb", title="Kernel Methods for Cooperative Multi-Agent Contextual Bandits",
        authors="Abhimanyu Dubey, Alex Pentland", venue="ICML 2020, PMLR 119",
        url="https://proceedings.mlr.press/v119/dubey20b.html",
        text="coop-kernelucb.txt", notebooks=("coop_kernelucb", "coop_theory"),
        summary=("Cooperative multi-agent kernel bandits on a network with a task kernel K_z: the paper claims that "
                 "cooperation lowers per-agent regret against independent learners on four networks, in a linear "
                 "and an RBF row (Figure 1), and bounds the regret in Theorems 1–2."),
        figures=(
            Figure("coop_kernelucb/fig1.png",
                   "Reproduces the paper's Figure 1: per-agent cumulative regret R̂(t) against time on four networks "
                   "(Erdős–Rényi, ego-Facebook, musae-Twitch, as-733), linear row (top) and RBF row (bottom), for "
                   "Coop-, Dist- and Eager-KernelUCB, Naive Cooperation and the independent learners; mean ± s.e. "
                   "over trials.",
                   panels=((r"-linear-er$", "linear, Erdős–Rényi"), (r"-linear-ego-facebook$", "linear, ego-Facebook"),
                           (r"-linear-twitch$", "linear, Twitch"), (r"-linear-as733$", "linear, as-733"),
                           (r"-rbf-er$", "RBF, Erdős–Rényi"), (r"-rbf-ego-facebook$", "RBF, ego-Facebook"),
                           (r"-rbf-twitch$", "RBF, Twitch"), (r"-rbf-as733$", "RBF, as-733"),
                           (r"safeguard-linear", "linear row"), (r"safeguard-rbf", "RBF row"))),
            Figure("coop_theory/theory.png",
                   "Theorems 1–2, Lemmas 3–4 and the MMD estimate of K_z: regret against V, the cover, "
                   "heterogeneity and the lemmas' two sides (checks C1–C10); not a figure of the paper.",
                   panels=((r"^C(\d+)-", r"C\1"),)),
        ),
        deviations=(
            Deviation("§5 (environment)", "The paper says only that K_x and K_z are “randomly initialized Gaussian "
                      "kernels” and sets σ = 1 for the kernel estimation: in the RBF row each agent's contexts are "
                      "centred on its own z and a cluster's z stay close, so that K_z at σ = 1 tells the clusters "
                      "apart."),
            Deviation("§4 (K̂_z)", "No rank cap by default: K̂_z is truncated at the smallest rank that keeps every "
                      "agent ≥ 95 % of its own variance; a cap is applied only when asked for, warns and is counted "
                      "(checks `fig1-safeguard-*`)."),
            Deviation("§5 (clusters)", "The paper's “clustering of the agents given by the independent sets of the "
                      "γth power” is read as Dist-KernelUCB's own partition (stars); Coop's clique cover is an "
                      "option (`cluster_mode=\"clique_cover\"`)."),
            Deviation("§5 (trials)", "10 of the paper's 100 trials per panel in full mode (CPU budget); every claim "
                      "is decided on paired intervals over those trials."),
            Deviation("§5 (RBF features)", "The RBF row's K_x is approximated by Nyström features on 32 landmarks "
                      "uniform on the unit sphere (every context is a unit vector); random Fourier features remain "
                      "an option (`features_rbf=\"rff\"`)."),
        ),
    ),
    Paper(
        name="FN-UCB", slug="fn_ucb", title="Federated Neural Bandits",
        authors="Zhongxiang Dai, Yao Shu, Arun Verma, Flint Xiaofeng Fan, Bryan Kian Hsiang Low, Patrick Jaillet",
        venue="ICLR 2023", url="https://openreview.net/forum?id=38m4h8HcNRL",
        text="fn-ucb.txt", notebooks=("fn_ucb", "fn_ucb_theory"),
        summary=("Federated neural-UCB: the paper claims FN-UCB with N = 1 is comparable to Neural UCB/TS, that "
                 "federation lowers regret as N grows, and that communication rounds fall with the threshold D "
                 "(Figures 1–6, Theorems 1–2)."),
        figures=(
            Figure("fn_ucb/fig1.png",
                   "Reproduces the paper's Figure 1 (a)–(d): average cumulative regret across agents against time on "
                   "cosine (a) and square (b) for N agents against Neural UCB and Neural TS, the components UCB_a and "
                   "UCB_b alone (c), and the communication threshold D (d); App. E's text training solid, the "
                   "official code's dashed “[official]”; mean ± s.e. over runs.",
                   panels=((r"^fig1([a-d])-", r"(\1)"),)),
            Figure("fn_ucb/fig2.png",
                   "Reproduces the paper's Figure 2 (a)–(d): the same on shuttle (a) and MAGIC (b), with the diagonal "
                   "approximation at m = 50 (c) and the threshold D (d); both trainings as in Figure 1.",
                   panels=((r"^fig2([a-d])-", r"(\1)"),)),
            Figure("fn_ucb/fig3_4_5.png",
                   "Reproduces App. E's Figures 3 (Less Comm. against the full variant), 4 (linear and kernel "
                   "baselines) and 5 (the diagonal approximation at m = 20).",
                   panels=((r"^fig3-", "Figure 3"), (r"^fig4-", "Figure 4"), (r"^fig5-", "Figure 5"))),
            Figure("fn_ucb/fig6.png",
                   "Reproduces App. E's Figure 6: final regret against the number of agents N, for both trainings.",
                   panels=((r"^fig6-", "Figure 6"),)),
            Figure("fn_ucb_theory/rounds.png",
                   "Theorem 2: communication rounds against D and against N with the round bound (checks E4–E7); "
                   "not a figure of the paper.", panels=((r"^E[4-7]-", "rounds"),)),
            Figure("fn_ucb_theory/regret_potential.png",
                   "Theorem 1: regret growth in T and the potential (E3, E13); not a figure of the paper.",
                   panels=((r"^E3-", "E3"), (r"^E13-", "E13"))),
            Figure("fn_ucb_theory/more_checks.png",
                   "Federation against one central learner (E2), the theory's weight α (E8), UCB_a's coverage (E12) "
                   "and the linearisation error against the width (E14); not a figure of the paper.",
                   panels=((r"^E2-", "E2"), (r"^E8-", "E8"), (r"^E12-", "E12"), (r"^E14-", "E14"))),
        ),
        deviations=(
            Deviation("App. E (training)", "App. E's text training is the default (each agent warm-starts from its "
                      "own last parameters, 30 iterations of lr 0.01, no training after 2000 iterations); the "
                      "official code's training (one network shared by every agent, 30·N steps per round, each "
                      "agent's training set growing only at rounds), which produced the paper's figures, runs beside "
                      "it wherever N or D varies, and each such claim is judged for both (`<id>` and "
                      "`<id>-official`)."),
            Deviation("§2, Assumption 1 (contexts)", "The UCI contexts (MAGIC, shuttle) have unit-norm rows, as "
                      "Assumption 1 states and §5.2's protocol (Zhang et al. 2021) does; the official code also "
                      "standardises every feature after the row normalisation (rows of norm up to 32), under which "
                      "full-batch training at lr 0.01 diverges in some runs. The official code's rows are the "
                      "option `standardize=True`, kept for the \"[official]\" curves; the committed full-mode run's text-training "
                      "curves use the unit-norm default (figures/fn_ucb/NOTE.md)."),
            Deviation("App. E (weight decay)", "Weight decay is λ divided by the number of points here, by the number "
                      "of training calls in the code (equal with the code's training subset)."),
            Deviation("Algorithm 1, line 9 (UCB_b)", "UCB_b reads a snapshot of the local inverses taken at the last "
                      "round; the code uses the current ones."),
            Deviation("§5 (runs)", "The paper's T = 5000 and 3 runs; a run whose network training overflows is kept "
                      "as a failed run (listed in `runs.csv`, counted in the legends), left out of the means and "
                      "of the paired claims, which become INCONCLUSIVE below 3 complete pairs; nothing is tuned to "
                      "avoid them."),
            Deviation("Theorem 2 (E6)", "The paper states only the bound C_T = Õ(d̃√N); the check reads it as rounds "
                      "growing roughly like √N at D = 1.5·T/N, a reading the paper does not state."),
        ),
    ),
    Paper(
        name="The arena", slug="arena", title="Every method of the five papers on common ground",
        authors="this package", venue="the package's own hypotheses, not a paper's claims", url=None, text=None,
        notebooks=("arena",), kind="arena",
        summary=("Every method of the five papers on the same environments, seeds and communication unit (scalars up "
                 "and down, from one ledger), in a synchronous and an asynchronous protocol; its claims are the "
                 "package's own hypotheses, fixed before the runs."),
        figures=(
            Figure("arena/pareto_sync.png",
                   "Synchronous protocol: final regret against total communication (scalars) for every method at "
                   "every communication value, per environment; the non-dominated front dashed.",
                   panels=((r"^duets-front-(\w+)$", r"\1"), (r"-sync-(\w+)$", r"\1"))),
            Figure("arena/pareto_async.png",
                   "Asynchronous protocol: the same, for the methods that run asynchronously.",
                   panels=((r"^async-front-(\w+)$", r"\1"), (r"-async-(\w+)$", r"\1"), (r"^break-even", "all"))),
            Figure("arena/pareto_sync_messages.png",
                   "Synchronous protocol, communication counted in messages instead of scalars."),
            Figure("arena/pareto_sync_rounds.png",
                   "Synchronous protocol, communication counted in communication rounds."),
            Figure("arena/pareto_async_messages.png",
                   "Asynchronous protocol, communication counted in messages."),
            Figure("arena/pareto_async_rounds.png",
                   "Asynchronous protocol, communication counted in communication rounds."),
            Figure("arena/map_hartmann4.png",
                   "The map on Hartmann-4: for each number of agents N and budget of B scalars, the method with the "
                   "lowest mean regret within the budget; hatched where the runs do not separate the winner from "
                   "the runner-up (paired 95 % interval of their regret difference contains 0)."),
            Figure("arena/map_shuttle.png",
                   "The map on shuttle: for each N and budget of B scalars, the method with the lowest mean regret "
                   "within the budget (hatched: not separated from the runner-up)."),
            Figure("arena/map_cosine.png",
                   "The map on cosine: for each N and budget of B scalars, the method with the lowest mean regret "
                   "within the budget (hatched: not separated from the runner-up)."),
        ),
        deviations=(
            Deviation("protocol", "Each method's exploration multiplier g comes from one shared grid {0.1, 0.2, 0.5, "
                      "1, 2, 5}, chosen on tuning runs apart from the tested ones; every communication value is "
                      "tested on its own runs."),
            Deviation("unit", "Communication is counted in scalars up and down from one ledger for every method; "
                      "messages and rounds are drawn as well, since each paper uses its own unit."),
        ),
    ),
)


def by_name(name: str) -> Paper:
    for p in PAPERS:
        if p.name == name:
            return p
    raise KeyError(f"no paper named {name!r} in bandits.papers.PAPERS ({', '.join(p.name for p in PAPERS)})")


def by_slug(slug: str) -> Paper:
    for p in PAPERS:
        if p.slug == slug:
            return p
    raise KeyError(f"no paper with slug {slug!r} in bandits.papers.PAPERS")


def paper_of_notebook(nb: str, papers=None) -> Paper | None:
    """The paper whose notebooks (or extra figure folders) include ``nb``; None for a notebook no paper lists."""
    for p in PAPERS if papers is None else papers:
        if nb in p.folders:
            return p
    return None


def folders(papers=None) -> list[str]:
    """Every ``figures/`` folder the manifest declares, in its order."""
    return [f for p in (PAPERS if papers is None else papers) for f in p.folders]


def text_of_folder(folder: str, papers=None) -> str | None:
    """The paper text file (under ``../shared/papers/``) of a ``figures/`` folder or notebook; None for the arena.
    Raises KeyError for a folder no paper declares."""
    p = paper_of_notebook(folder, papers)
    if p is None:
        raise KeyError(f"figures/{folder}: no paper in bandits.papers.PAPERS lists it")
    return p.text
