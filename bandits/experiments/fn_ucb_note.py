"""The ``NOTE.md`` of a FN-UCB folder (``figures/fn_ucb/``), written from the folder's files only: what its runs show beside the claims (:func:`note_markdown`; ``python -m bandits.report note``, and the notebook's last cell through ``bandits.experiments.notebook.NOTE_WRITERS``). Never a run's code: excluded from the run cache's fingerprint (``bandits.runner.NOT_IN_RUNS``)."""

from __future__ import annotations

import numpy as np
from .claims import duration, folder_csv, folder_json, md_table, repo_path, run_seconds, step_tallies
from .fn_ucb import failed_mask

__all__ = ["note_markdown"]


#: The columns of ``runs.csv`` that identify a run (a run shared by several figures has a row in each).
_RUN_KEY = ("env", "algorithm", "N", "official", "rep", "nu", "width", "D", "diag", "variant")
_VERDICTS = ("PASS", "FAIL", "WITHIN", "INCONCLUSIVE")
#: A classification run "collapsed": R̄(T) ≥ this share of T (a round's regret is 0 or 1 there, so R̄(T)/T is the
#: share of rounds with a wrong class, N = 1).
_COLLAPSED = 0.9
_LABEL_NOTES = {"NeuralUCB": "App. E's text training, the paper's unit-norm rows",
                "NeuralTS": "App. E's text training, the paper's unit-norm rows",
                "NeuralUCB [official]": "the official code's training and rows",
                "NeuralTS [official]": "the official code's training and rows"}


_fmt_s = duration  # bandits.experiments.claims


def _r(x) -> str:
    """A regret for the note: whole numbers from 100 on, three significant digits below."""
    x = float(x)
    if not np.isfinite(x):
        return "–"
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _pct(x: float) -> str:
    return f"{100 * x:.3g} %"


def _figs(figs) -> str:
    from .fn_ucb import FIGURES

    figs = sorted(set(figs), key=lambda f: (FIGURES.index(f) if f in FIGURES else len(FIGURES), f))
    return ("Fig. " if len(figs) == 1 else "Figs. ") + ", ".join(figs)


def _distinct(runs):
    """One row per run (``runs.csv`` repeats a run shared by several figures)."""
    return runs.drop_duplicates([c for c in _RUN_KEY if c in runs.columns])


def _read_folder(folder) -> dict:
    """The files of an FN-UCB folder the note reads (None for a file the folder lacks)."""


    def js(name):
        return folder_json(folder, name)

    def csv(name):
        df = folder_csv(folder, name)
        if df is not None and "failed" in df:  # an empty column reads as float: the errors are text
            df["failed"] = df["failed"].astype(object)
        return df

    cj = js("claims.json")
    return {"prov": js("provenance.json") or {}, "runs": csv("runs.csv"), "results": csv("results.csv"),
            "claims": (cj or {}).get("claims", []), "seq": js("sequential.json"),
            "manifest": js("sequential_runs/manifest.json"), "seq_runs": csv("sequential_runs/runs.csv")}


def _note_runs(f: dict) -> list:
    prov, runs, results = f["prov"], f["runs"], f["results"]
    p = prov.get("parameters", {})
    git = prov.get("git") or {}
    commit = (git.get("commit") or "unknown")[:7]
    figs = [x for x in p.get("figures", []) if x] or sorted(set(runs.figure) - {"4-select"})
    T = p.get("T", int(results.t.max()) if results is not None else "?")
    n = p.get("n_runs", "?")
    tested = runs[runs.figure != "4-select"]
    off = sorted(set(tested[tested.official.astype(bool)].figure))
    text_only = sorted(set(tested.figure) - set(off))
    line = (f"- **What ran.** `{prov.get('notebook', 'fn_ucb.ipynb')}` in {prov.get('mode') or '?'} mode at commit "
            f"`{commit}`" + (" (the working tree not clean when provenance.json was written)" if git.get("dirty") else "")
            + f", master seed {prov.get('seed', 0)}, {prov.get('n_jobs', '?')} worker{'' if prov.get('n_jobs') == 1 else 's'} ({prov.get('backend', '?')}), "
            f"arithmetic `{prov.get('arithmetic', '?')}`, written {prov.get('created', '?')}. {_figs(figs)} at "
            f"T = {T}, {n} runs per curve ({n} of the paper's 3: \"the mean and standard error from 3 independent "
            "runs\", §5)")
    if "6" in figs:
        line += "; Fig. 6 is drawn from the runs of Figs. 1a and 1b"
    sel = runs[runs.figure == "4-select"]
    if len(sel):
        line += (f"; Fig. 4's ν picked on {sel.rep.nunique()} runs of each baseline's own (`4-select` in `runs.csv`, "
                 "run indices after the tested ones)")
    line += "."
    if off:
        line += (f" Two trainings side by side on {_figs(off)}: App. E's text training (FN-UCB's default, plain "
                 "labels) and the official code's (labelled \"[official]\")"
                 + (f"; {_figs(text_only)} with the text's training only" if text_only else "") + ".")
    d = _distinct(runs)
    secs, words = run_seconds(d)
    line += (f" {len(d)} runs ({len(runs)} rows of `runs.csv`: a run can serve several figures, and is computed and "
             f"counted once), {_fmt_s(secs.sum(skipna=True))} of the runs' own recorded time ({words}, "
             "each run once; `figures/TIMES.md` gives the time on 2 cores).")
    out = [line]
    if results is not None and len(results):
        ts = np.sort(results.t.unique())
        step = int(np.min(np.diff(ts))) if len(ts) > 1 else int(ts[0])
        curves = results.drop_duplicates(["figure", "env", "label", "rep"]) if "rep" in results else results
        out.append(f"- **`results.csv`** holds R̄(t) of its {len(curves)} runs of a curve (a run serving several figures "
                   f"is in each) at every {step}th round and the last (t = "
                   + (f"{int(ts[0])}, {int(ts[1])}, …, {int(ts[-1])}" if len(ts) > 2 else
                      ", ".join(str(int(t)) for t in ts)) + ")"
                   + (f"; the figures were drawn from every {p['stride']}th round" if "stride" in p else "")
                   + ". R̄(T) per run is in `runs.csv` (`R_T`), at full precision: the claims use it.")
    envs = set(tested.env)
    pre = ("- **Preprocessing.** The plain curves run on the paper's contexts: all of unit norm, ‖x‖₂ = 1 "
           "(Assumption 1, §2, of the paper, `../shared/papers/fn-ucb.txt` beside the repository); the synthetic ones "
           "uniform on the unit sphere")
    if envs & {"shuttle", "magic"}:
        pre += (", the UCI rows (the datasets of App. E) L2-normalised as §5.2's protocol (Zhang et al., 2021) gives "
                "them (`bandits/envs/fn_ucb.py`, `standardize=False`, the package's default)")
    pre += (". The \"[official]\" curves run on the official code's environment: cube-normalised synthetic contexts "
            "and its fixed `a`")
    if set(tested[tested.official.astype(bool)].env) & {"shuttle", "magic"}:
        pre += (", and for the UCI data its rows (`standardize=True`: its StandardScaler after the row normalisation, "
                "\"added by us\" in its `data_multi.py`, not in the paper), which are no longer of unit norm (their "
                "norms: the module docstring of `bandits/envs/fn_ucb.py`)")
    out.append(pre + ".")
    return out


def _note_sequential(f: dict) -> list:
    seq = f["seq"]
    if not seq:
        return []
    d = seq.get("design", {})
    looks = d.get("looks", [])
    sch = [lk["n"] for lk in looks]
    level = {i + 1: lk.get("level") for i, lk in enumerate(looks)}
    stages = seq.get("stages", [])
    claims = seq.get("claims", {})
    fut = seq.get("futility_from_look") or (1 if seq.get("futility") else 0)
    budget = seq.get("budget_s")
    alpha = d.get("alpha_one_sided")
    head = (f"`bandits.sequential`, its schedule and spending fixed before its runs: looks at "
            f"n = {', '.join(str(x) for x in sch)} runs, {d.get('spending', '?')} spending"
            + (f", {100 * alpha:g} % one-sided per direction" if alpha else "")
            + (f"; a budget of {budget:g} CPU-s" if budget is not None else "; no budget")
            + (f", the futility stop from look {fut} on" if fut else ", no futility stop")
            + " (the budget and the futility stop: docs/statistics.md, \"The committed budgets\"). "
            f"Each of the {len(claims)} claims it covers is judged at look 1 on the committed runs, at the look's "
            "level; the curves behind the claims not yet decided are given more runs, look by look, through the run "
            "cache.")
    added, failed, refused = step_tallies(seq)
    cpu = float(seq.get("cpu_s", 0.0))
    head += (f" {added} runs added, {cpu:.0f} CPU-s ({_fmt_s(cpu)}) of their recorded run time counted against the "
             f"budget, {failed} of them failed.")
    if seq.get("stopped"):
        head += f" Stopped: {seq['stopped']}" + (f" (look {refused[-1]['look']}: {refused[-1]['refused']})"
                                                 if refused else "") + "."
    if f["manifest"] is not None:
        lk = f["manifest"].get("looks", {})
        rows = sum(int((v.get("tables") or {}).get("runs", 0)) for v in lk.values())
        head += (f" The added runs are kept in `sequential_runs/` (`runs.csv`: {rows} rows, a row per run and figure "
                 f"with its look; look{'s' if len(lk) != 1 else ''} {', '.join(sorted(lk, key=int))})")
    else:
        head += " The added runs are in the run cache only"
    head += "; `runs.csv` and `results.csv` hold the notebook's runs, which the figures show."
    out = ["## The sequential step", "", head, ""]

    def counts(ids):
        v = [claims[c]["verdict"] for c in ids]
        return ", ".join(f"{v.count(x)} {x}" for x in _VERDICTS if v.count(x)) or "none"

    rows = []
    decided = {}
    for cid, r in claims.items():
        if not r.get("stopped"):
            decided.setdefault(int(r.get("look", 1)), []).append(cid)
    for k in range(1, max([1] + [int(st.get("look", 1)) for st in stages]) + 1):
        st = next((s for s in stages if int(s.get("look", 0)) == k), None)
        if k == 1:
            what, judged = f"the committed runs ({sch[0] if sch else '?'} per curve)", str(len(claims))
        elif st is None:
            continue
        elif st.get("refused"):
            what, judged = f"refused: {st['refused']}", f"{len(st.get('claims', []))} open, not judged"
        else:
            src = [f"{st[k2]} {w}" for k2, w in (("computed", "computed"), ("stored", "read back from "
                                                                              "`sequential_runs/`"),
                                                 ("cached", "from the run cache")) if st.get(k2)]
            what = (f"{st.get('runs', 0)} runs on {len(st.get('cells', []))} curves (runs "
                    f"{', '.join(str(x) for x in st.get('reps', []))}; {', '.join(src) or 'none computed'}), "
                    f"{_fmt_s(st.get('recorded_s', 0.0))} recorded, {int(st.get('failed', 0) or 0)} failed")
            judged = str(len(st.get("claims", [])))
        lv = level.get(k)
        n_k = sch[k - 1] if k - 1 < len(sch) else "?"
        rows.append([str(k), str(n_k), f"{100 * lv:.2f} %" if lv else "–", what, judged,
                     counts(decided.get(k, [])) if k in decided else "none"])
    out += md_table(["look", "n", "level", "runs", "claims judged", "decided there"], rows)
    within = [(c, r) for c, r in claims.items() if r["verdict"] == "WITHIN" and not r.get("stopped")]
    if decided:
        out += ["", "The claims decided, by look (fixed-size verdict at n = "
                f"{sch[0] if sch else '?'} in brackets where it differs):", ""]
        drows = []
        for k in sorted(decided):
            for v in _VERDICTS:
                ids = [c for c in decided[k] if claims[c]["verdict"] == v]
                if ids:
                    drows.append([str(k), v, ", ".join(
                        f"`{c}`" + (f" ({claims[c]['committed_verdict']})" if claims[c].get("committed_verdict")
                                    and claims[c]["committed_verdict"] != v else "") for c in ids)])
        out += md_table(["look", "verdict", "claims"], drows)
        if within:
            out += ["", "WITHIN: settled within the claim's margin (INCONCLUSIVE in `claims.json`, whose note says so): "
                    + "; ".join(f"`{c}`, {r.get('within', '')}" for c, r in within) + "."]
    # open: stopped before the schedule's end, or INCONCLUSIVE at its last look (no look left to decide them)
    last = len(sch)
    still = [(c, r) for c, r in claims.items() if r.get("stopped") or
             (r["verdict"] == "INCONCLUSIVE" and last > 1 and r.get("look") == last)]
    if still:
        why = {}
        for _, r in still:
            key = r.get("stopped") or "last"
            why[key] = why.get(key, 0) + 1
        said = [(f"{'all' if k == len(still) else k} stopped by the CPU budget" if s == "budget" else
                 f"{'all' if k == len(still) else k} at the schedule's last look (n = {sch[-1]})" if s == "last" else
                 f"{'all' if k == len(still) else k} stopped for {s}") for s, k in why.items()]
        out += ["", f"Still open: {len(still)} claims, {', '.join(said)}; INCONCLUSIVE, with the deciding comparison "
                    "at their last look:", ""]
        orows = []
        for cid, r in still:
            iv = r.get("interval") or [None, None]
            bounds = ("(unbounded interval)" if any(b is None or not np.isfinite(b) for b in iv) else
                      f"[{_r(iv[0])}, {_r(iv[1])}]")
            cmp_ = f"{r.get('label', '')}: {_r(r['effect'])} {bounds}" if r.get("effect") is not None else "–"
            stop = ("the schedule's last look" if not r.get("stopped") else "the budget" if r["stopped"] == "budget" else
                    f"futility: {r.get('futility', '')}" if r["stopped"] == "futility" else str(r["stopped"]))
            orows.append([f"`{cid}`", f"{r.get('look', '?')} (n = {r.get('decided_at_n', '?')})", cmp_, stop])
        out += md_table(["claim", "last look", "deciding comparison: effect [interval]", "stopped by"], orows)
    nc = seq.get("not_covered") or {}
    if nc:
        out += ["", "Not covered by the sequential rule: " + "; ".join(f"`{c}` ({w})" for c, w in nc.items()) + "."]
    return out + [""]


def _note_failures_claims(f: dict) -> list:
    from collections import Counter

    runs, seq_runs = f["runs"], f["seq_runs"]
    d = _distinct(runs)
    k = int(failed_mask(d).sum())
    line = (f"- **Failed runs** (`failed` column: a run whose network training diverged, kept with its error, left out "
            f"of its curve's mean and counted for its method in the claims): {k} of the {len(d)} runs of `runs.csv`")
    if seq_runs is not None:
        ds = _distinct(seq_runs)
        line += f", {int(failed_mask(ds).sum())} of the {len(ds)} runs of `sequential_runs/runs.csv`"
    out = [line + "."]
    claims = f["claims"]
    if claims:
        v = Counter(c["verdict"] for c in claims)
        by = {}
        for c in claims:
            by.setdefault(c.get("kind", "paper"), Counter())[c["verdict"]] += 1
        words = lambda cnt: ", ".join(f"{cnt[x]} {x}" for x in _VERDICTS if cnt[x])  # noqa: E731
        out.append(f"- **Claims** ({len(claims)} in `claims.json`, with their numbers, intervals, verdicts and causes"
                   + (", after the sequential step" if f["seq"] else "") + f"): {words(v)}"
                   + (" (" + "; ".join(f"{kind} {sum(c.values())}: {words(c)}" for kind, c in by.items()) + ")"
                      if len(by) > 1 else "") + ".")
    fr = d[failed_mask(d)]
    if len(fr):
        out += ["", "The failed runs:", ""]
        out += md_table(["figure", "env", "curve", "run", "error"],
                        [[r.figure, r.env, r.label, int(r.rep), str(r.failed)[:90]] for r in fr.itertuples()])
    return out + [""]


def _parts(c: dict) -> list:
    """``[(label, verdict)]`` of a claim's parts, read from its ``detail`` lines."""
    import re

    out = []
    for line in c.get("detail") or []:
        m, v = re.match(r"(.*?) = ", line), re.search(r"-> (\w+)", line)
        if m and v:
            out.append((m.group(1), v.group(1)))
    return out


def _note_collapse(f: dict) -> list:
    import re

    runs, seq_runs = f["runs"], f["seq_runs"]
    T = f["prov"].get("parameters", {}).get("T")

    def sel(df, lab):
        if df is None:
            return df
        return df[(df.figure == "2a") & (df.env == "shuttle") & (df.label == lab)].sort_values("rep")

    ucb = sel(runs, "NeuralUCB")
    if ucb is None or ucb.empty or not T:
        return []
    labels = [lab for lab in ("NeuralUCB", "NeuralTS", "NeuralUCB [official]") if len(sel(runs, lab))]
    cut = _COLLAPSED * T
    rows, tally = [], {}
    for lab in labels:
        a, b = sel(runs, lab), sel(seq_runs, lab)
        b = b if b is not None and len(b) else None
        vals = list(a.R_T) + ([] if b is None else list(b.R_T))
        tally[lab] = (sum(v >= cut for v in vals), len(vals), max(vals))
        row = [f"{lab} ({_LABEL_NOTES.get(lab, '')})", ", ".join(f"{int(r)}: {_r(v)}" for r, v in zip(a.rep, a.R_T))]
        if seq_runs is not None:
            row.append("–" if b is None else ", ".join(f"{int(r)}: {_r(v)}" for r, v in zip(b.rep, b.R_T)))
        row.append(f"{tally[lab][0]} of {tally[lab][1]}")
        rows.append(row)
    k, n, _ = tally["NeuralUCB"]
    nu = ", ".join(f"{x:g}" for x in sorted(set(ucb.nu.dropna()))) if "nu" in ucb else "?"
    m = ", ".join(f"{x:g}" for x in sorted(set(ucb.width.dropna()))) if "width" in ucb else "?"
    out = ["## App. E's Neural UCB on unit-norm shuttle", "",
           f"Neural UCB with App. E's text training on the paper's unit-norm shuttle rows (Fig. 2a; ν = {nu}, "
           f"m = {m} in `runs.csv`, λ = 10 as §5.2) picks a wrong class in at least {_pct(_COLLAPSED)} of the "
           f"rounds, R̄(T) ≥ {_r(cut)} at T = {T}, in {k} of its {n} runs (a round's regret is 0 or 1 on these "
           "data, so R̄(T)/T is the share of rounds with a wrong class). R̄(T) per run (run: R̄(T)):", ""]
    head = ["curve", "`runs.csv`"] + (["`sequential_runs/`"] if seq_runs is not None else []) + \
        [f"runs with R̄(T) ≥ {_r(cut)}"]
    out += md_table(head, rows)
    others = [f"{lab}'s largest R̄(T) is {_r(tally[lab][2])}" for lab in labels if lab != "NeuralUCB"]
    if others:
        out += ["", "Beside it, " + "; ".join(others) + "."]
    reading = []
    for c in f["claims"]:
        parts = _parts(c)
        if (c["id"].endswith("-official") or not c.get("check", "").startswith("shuttle")
                or not any(re.search(r"NeuralUCB(?! \[)", lab) for lab, _ in parts)):
            continue
        rest = [(lab, v) for lab, v in parts if not re.search(r"NeuralUCB(?! \[)", lab)]
        s = f"`{c['id']}` ({c['verdict']}): "
        if rest:
            s += "its parts without Neural UCB: " + "; ".join(f"{lab} → {v}" for lab, v in rest)
        else:
            s += "every part compares Neural UCB"
            others_ = [re.split(r" − ", lab, maxsplit=1)[-1] for lab, _ in parts]
            ts = runs[(runs.figure == "4") & (runs.env == "shuttle")]
            mean = ts.groupby("label").R_T.mean()
            if "NeuralTS" in mean.index and all(o in mean.index for o in others_):
                below = sum(mean["NeuralTS"] < mean[o] for o in others_)
                s += (f"; NeuralTS's mean R̄(T), {_r(mean['NeuralTS'])}, is "
                      + (f"above each of the {len(others_)} baselines" if below == 0 else
                         f"below {below} of the {len(others_)} baselines") + " these parts compare with (mean R̄(T) "
                      + ", ".join(f"{o} {_r(mean[o])}" for o in others_) + ")")
        reading.append(s)
    if reading:
        out += ["", "The claims that read this curve: " + "; ".join(reading) + "."]
    out += ["", "How often it happens beyond these runs, and the first training calls' effect on the hidden units, "
                "are open; what was measured about it outside these runs is in the next section."]
    return out + [""]


_OUTSIDE = [
    "## Measured outside these runs",
    "",
    "Not in any file of this folder: measurements made once, outside the notebook, kept here because they explain "
    "the collapse above; rerunning the notebook does not check them.",
    "",
    "- *This package's Neural UCB* on the unit-norm shuttle rows: its network's outputs at t = 0 range over −7 to 1.4 "
    "on the block contexts; from the fifth step on its outputs and gradient features are the same for all seven arms "
    "(the hidden units inactive on these inputs after the first training calls), so the UCB scores tie and the "
    "choice does not follow the class. Its choices are the same at T = 2500 and T = 3000 for the first 400 steps (it "
    "does not depend on the horizon). At T = 400, runs 0–5 err in 396, 399, 400, 110, 157, 63 rounds.",
    "- *The official code* (daizhongxiang/Federated-Neural-Bandits, `neural_ucb_ts.py`: m = 20, λ = 10, ν = 0.01 "
    "in its width form, its N(0, 1) initialisation of every weight and bias, as here), run on the same rows with its "
    "StandardScaler step removed, T = 400: errs in 94, 342, 248, 75 rounds for seeds 0–3 (rounds 200–399: 28, 158, "
    "65, 38); on its own standardised rows, seed 0: 81 (34).",
    "- *Reading*: the official code shows the same instability on these rows, on some seeds; so it is a property of "
    "the setting (unit-norm inputs, where the N(0, 1) biases dominate the hidden pre-activations, and the first "
    "training calls can switch every hidden unit off), more complete here than in the official code's float32 runs.",
    "",
]


def _note_trainings(f: dict) -> list:
    runs = f["runs"]
    out = ["## The two trainings", "",
           "App. E: \"when training the NN (line 14 of Algo. 1) for agent i, we use the NN parameters resulting from "
           "the last gradient descent training of agent i (instead of θ 0 ) as the initial parameters, in order to "
           "accelerate the training procedure. Every time we train an NN, we use stochastic gradient descent to train "
           "the NN for 30 iterations with a learning rate of 0.01. To save computational cost, we stop training the "
           "NNs after 2000 iterations\". That is FN-UCB's default (`nn_mode=\"own_prev\"`, full-batch as the code). "
           "The official code (daizhongxiang/Federated-Neural-Bandits, `run_fn_ucb.py`) gives every agent, θ_sync,NN "
           "and the θ0 feature network one parameter storage: a round trains that one network 30 steps on agent 1's "
           "data, then agent 2's, …, i.e. 30·N steps per round, and an agent's training set grows only in iterations "
           "that train (`nn_mode=\"official_shared\"`, `official_train_subset=True`, on the code's environment). The "
           "paper's figures and released numbers come from the code. "
           "`tests/test_fn_ucb.py::test_official_regression_n5_d5_rounds_and_regret` holds the code's training at "
           "N = 5, D = 5 to the official code's rounds and regret."]
    d = runs[runs.figure == "1d"]
    if len(d) and d.official.astype(bool).any():
        d = d.assign(Dv=d.D.fillna(0.0) if "D" in d else 0.0, off=d.official.astype(bool))
        g = d.groupby(["Dv", "off"])[["rounds", "R_T"]].mean()
        n = d.rep.nunique()
        rows = []
        for D in sorted(set(d.Dv)):
            row = ["0 (every round)" if D == 0 else f"{D:g}"]
            for off in (False, True):
                if (D, off) in g.index:
                    row += [f"{g.loc[(D, off), 'rounds']:.0f}", _r(g.loc[(D, off), "R_T"])]
                else:
                    row += ["–", "–"]
            rows.append(row)
        env = ", ".join(sorted(set(d.env)))
        out += ["", f"Fig. 1d ({env}, N = 5, T = {f['prov'].get('parameters', {}).get('T', '?')}), mean over the "
                    f"{n} runs of `runs.csv`: communication rounds and R̄(T) per D, for each training:", ""]
        out += md_table(["D", "text: rounds", "text: R̄(T)", "official: rounds", "official: R̄(T)"], rows)
    out += [""]
    return out


def _note_reading(f: dict) -> list:
    runs, seq_runs = f["runs"], f["seq_runs"]
    out = ["## Reading", "",
           "- *It is the training, not the D rule.* The trigger, the statistics and the rounds follow the code "
           "exactly; the rounds differ between trainings only because the code's features are gradients at its "
           "current (trained) network, while the text's stay at θ0."]
    agg = ("- *App. E's text training is short of the code's.* Each agent's network trains only on its own data and "
           "is never re-synchronised; UCB_b uses the average of N such networks")
    full, noagg = "FN-UCB (N=2)", "no NN aggregation"

    def pair(df):
        if df is None:
            return None
        c = df[(df.figure == "1c") & (df.env == "cosine")]
        a = c[c.label == full].set_index("rep").R_T
        b = c[c.label == noagg].set_index("rep").R_T
        common = a.index.intersection(b.index)
        return (a[common], b[common]) if len(common) else None

    got = pair(runs)
    if got is not None:
        a, b = got
        agg += (f": on cosine (Fig. 1c, N = 2) \"no NN aggregation\" has mean R̄(T) {_r(b.mean())} against FN-UCB's "
                f"{_r(a.mean())}, lower in {int((b < a).sum())} of the {len(a)} runs of `runs.csv`")
        more = pair(seq_runs)
        if more is not None:
            a2, b2 = more
            agg += f" and in {int((b2 < a2).sum())} of the {len(a2)} runs the sequential step added"
        agg += " (`fig1c-aggregation-helps` in `claims.json`)"
    agg += (". The code's one network, in contrast, sees every agent's data in turn, 30·N steps per round. FedAvg from "
            "θ_sync (`nn_mode=\"fedavg\"`) makes ≈ 30 effective steps per round whatever N; `\"fedavg_budget\"` gives "
            "it the code's budget of 30·N local steps per round.")
    out += [agg,
            "- So the paper's numbers (and its N-scaling and D-ordering figures) are the official code's training; the "
            "claims with N or D on an axis are judged for both (`<id>` for the text's training, `<id>-official` for "
            "the code's), and the cause of a text-training non-PASS names the training.", ""]
    fig3 = runs[runs.figure == "3"]
    d0 = len(fig3) and (fig3.D.fillna(0.0) == 0).all() if "D" in fig3 else len(fig3) > 0
    out += ["## Two more differences from the code", "",
            "Documented in `bandits/algorithms/fn_ucb.py`: the weight decay is λ/(number of training points), the "
            "code's λ/(number of training calls); the two coincide with `official_train_subset=True` and differ "
            "without it. And FN-UCB (full)'s UCB_b uses the local inverses broadcast at the last round (Algo. 1–2), "
            "the code every agent's current one (equal at D = 0"
            + ("; Fig. 3 runs D = 0, `runs.csv`" if d0 else "") + ").", ""]
    return out


def _note_not_run(f: dict) -> list:
    from .fn_ucb import FIGURES

    runs, p = f["runs"], f["prov"].get("parameters", {})
    tested = runs[runs.figure != "4-select"]
    bits = []
    missing = [x for x in FIGURES if x not in (p.get("figures") or FIGURES)]
    if missing:
        bits.append(f"{_figs(missing)} in this mode (the figure groups the parameters leave out)")
    off = set(tested[tested.official.astype(bool)].figure)
    text_only = sorted(set(tested.figure) - off)
    if off and text_only:
        bits.append(f"the official code's training for {_figs(text_only)} (they run the text's training only)")
    if not bits:
        return []
    return ["**Not run:** " + "; ".join(bits) + ".", ""]


def note_markdown(folder) -> str:
    """``NOTE.md`` of an FN-UCB folder, written from its files only (never by hand): what ran (commit, sizes, runs
    and their recorded time), the preprocessing, the sequential step (looks, runs added, claims decided per look,
    the claims still open and why each stopped), the failed runs, the claims' verdicts, App. E's Neural UCB on
    unit-norm shuttle, and the two trainings; the measurements made outside the runs are kept in a section of their
    own. Sections whose files are absent (a quick-mode folder: no ``sequential.json``) are left out. ``python -m
    bandits.report note <folder>`` writes it; so does the notebook's last cell."""
    from pathlib import Path

    folder = Path(folder)
    f = _read_folder(folder)
    if f["runs"] is None:
        raise FileNotFoundError(f"{folder / 'runs.csv'}: the note is written from the folder's runs")
    mode = f["prov"].get("mode") or "?"
    have = [x for x in ("runs.csv", "results.csv", "claims.json", "sequential.json", "sequential_runs/",
                        "provenance.json") if (folder / x.rstrip("/")).exists()]
    listed = ", ".join(f"`{x}`" for x in have[:-1]) + f" and `{have[-1]}`" if len(have) > 1 else f"`{have[0]}`"
    collapse = _note_collapse(f)
    out = [f"# FN-UCB: {mode} mode", "",
           "Written from this folder's files by `python -m bandits.report note` (the notebook's last cell does the "
           f"same); never edited by hand: every number below is read from {listed}"
           + (", except those of the section \"Measured outside these runs\", which says where they come from"
              if collapse else "")
           + ". What the figures are, and why they are built so: the notebook (`fn_ucb.ipynb`) and the docstring of "
             "`bandits/experiments/fn_ucb.py`.", ""]
    out += _note_runs(f)
    out += _note_failures_claims(f)
    out += _note_sequential(f)
    if collapse:
        out += collapse + _OUTSIDE
    out += _note_trainings(f)
    out += _note_reading(f)
    out += _note_not_run(f)
    out += ["Regenerate the runs with `make figures NOTEBOOKS=notebooks/fn_ucb.py`; this note alone with "
            f"`python -m bandits.report note {repo_path(folder)}`."]
    return "\n".join(out).rstrip() + "\n"
