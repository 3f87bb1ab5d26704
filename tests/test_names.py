"""One name per method: every registered method has one registry name and one display label
(bandits.algorithms.LABELS, label, name_of), and every display name the experiments use in their method tables
resolves to exactly one registered algorithm, the one the experiment itself runs for it (read over the
experiments' own tables and name-to-algorithm functions; nothing here changes them)."""
import pytest

from bandits.algorithms import (ALGORITHMS, ALIASES, LABELS, PE_ALGORITHMS, get_pe_algorithm, label, name_of,
                                registered_names)

#: display names an experiment uses that name no single registered method, each with the reason (reported; the
#: experiment's own mapping decides what runs)
UNRESOLVED = {
    "Naive Cooperation": "coop_kernelucb's legend name for Naive-LinUCB (linear row) and Naive-IGP-UCB (rbf row)",
}


def test_names_labels_and_aliases_are_one_to_one():
    names = registered_names()
    assert len(set(names)) == len(names)
    assert set(LABELS) <= set(names) and set(ALIASES.values()) <= set(names)
    owner = {}  # every string a table may show -> the one method it names
    for n in names:
        for s in (n, label(n)):
            assert owner.setdefault(s, n) == n, f"{s!r} names both {owner[s]!r} and {n!r}"
    for a, n in ALIASES.items():
        assert owner.setdefault(a, n) == n, f"alias {a!r} names both {owner[a]!r} and {n!r}"
    for s, n in owner.items():
        assert name_of(s) == n


def test_label_examples_and_errors():
    assert label("AsyncKernelUCB") == "Async-KernelUCB" and label("N-KernelUCB") == "N-KernelUCB"
    assert label("CoKernelIndAlloc") == "CoKernel-IndAlloc" and label("FN-UCB") == "FN-UCB"
    assert name_of("Async-KernelUCB") == "AsyncKernelUCB" and name_of("NKernelUCB") == "N-KernelUCB"
    assert name_of("CoKernel-IndAlloc-B") == "CoKernelIndAlloc" and name_of("IndPeaceFB-pooled") == "IndPeaceFB"
    assert name_of("DUETS [code trim]") == "DUETS" and name_of("FN-UCB [only UCB_a]") == "FN-UCB [only UCB_a]"
    for bad in ("N-Kernel", "KernelUCB-C", "Naive Cooperation", ""):
        with pytest.raises(ValueError, match="parameter 'display' must be a registry name"):
            name_of(bad)
    with pytest.raises(ValueError, match="parameter 'name' must be one of \\['DUETS'"):
        label("Async-KernelUCB")  # a label is not a name


def test_every_policy_class_name_resolves_to_its_entry():
    for n, cls in ALGORITHMS.items():
        assert name_of(cls.name) == n, n
    for n in PE_ALGORITHMS:
        assert name_of(get_pe_algorithm(n).name) == n, n


def _experiment_methods():
    """``(experiment, display name, registry name the experiment runs for it)`` over the method tables."""
    from bandits.experiments import arena, async_kernelucb, coop_kernelucb, cope_kb, duets, fn_ucb
    from bandits.experiments.async_theory import setting as async_setting

    out = []
    p = duets.fig1_params("quick")
    out += [("duets", m, duets.method_config(m, p)[0]) for m in duets.BASE_METHODS + duets.VARIANTS]
    p = async_kernelucb.async_params("quick")
    out += [("async_kernelucb", m, async_kernelucb.method_config(m, p, 1.0, 1.0, "f1", 10)[0])
            for m in async_kernelucb.METHODS]
    out += [("async_theory", m, alg) for m, alg in async_setting._ALG.items()]
    p = arena.arena_params("quick")
    for protocol, methods in (("sync", arena.SYNC_METHODS), ("async", arena.ASYNC_METHODS)):
        out += [("arena", m, arena.method_config(m, protocol, "f1" if protocol == "async" else "cosine", 1.0, p)[0])
                for m in methods]
    out += [("arena", m, None) for m in arena.ALL_METHODS]
    p = cope_kb.cope_params("quick")
    out += [("cope_kb", m, cope_kb._fc_method(m, p, 2, 0.1, p["constants"])[0]) for m in cope_kb.FC_METHODS]
    out += [("cope_kb", m, cope_kb._fb_method(m, p, 1000)[0]) for m in cope_kb.FB_METHODS + cope_kb.FB_VARIANTS]
    for row, methods in coop_kernelucb.ROW_METHODS.items():
        out += [(f"coop_kernelucb/{row}", m, alg) for m, (alg, _) in methods.items()]
    out += [("fn_ucb", c.algorithm, c.algorithm) for c in fn_ucb.curves(fn_ucb.fn_params("full"))]
    return out


def test_every_experiment_method_resolves_to_the_algorithm_it_runs():
    rows = _experiment_methods()
    assert len(rows) > 50
    wrong, unresolved = [], set()
    for exp, display, alg in rows:
        if display in UNRESOLVED:
            unresolved.add(display)
            with pytest.raises(ValueError):
                name_of(display)
            continue
        got = name_of(display)
        assert got in ALGORITHMS or got in PE_ALGORITHMS
        if alg is not None and got != alg:
            wrong.append((exp, display, got, alg))
    assert not wrong, f"display names resolving to another algorithm than the experiment runs: {wrong}"
    assert unresolved == set(UNRESOLVED), "UNRESOLVED lists a name no experiment uses any more"
