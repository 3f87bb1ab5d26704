"""Algorithms (layer 6): one module per family; shared single-agent cores live once.

``ALGORITHMS`` maps the names used in experiment configs to policy classes (``PE_ALGORITHMS`` the
pure-exploration ones).

**One name per method.** Every registered method has one *name*, its registry key (what a run's
configuration holds, so what the run cache is keyed on), and one display *label*, what tables and figures
show (:data:`LABELS`; the label is the name unless listed, e.g. ``"AsyncKernelUCB"`` is shown
``"Async-KernelUCB"``). The five papers spell some methods differently (the Async-KernelUCB paper's
``"NKernelUCB"`` is the DUETS paper's ``"N-KernelUCB"``; the Coop-KernelUCB paper's ``"LinUCB"`` is each
agent running LinUCB alone, ``"Ind-LinUCB"`` here): a notebook may keep its paper's spelling, listed in
:data:`ALIASES`. A *variant* of a method (one of two readings of a sentence, another data-pooling rule) is
displayed as the method's label or name followed by a tag of :data:`VARIANT_TAGS` or by a note in brackets
or parentheses (``"CoKernel-IndAlloc-A"``, ``"IndPeaceFB-pooled"``, ``"CoKernelFB [reuse rounds, R within]"``,
``"Coop-KernelUCB (oracle K_z)"``).
:func:`label` gives a name's label; :func:`name_of` resolves any display name (name, label, paper spelling,
variant) to exactly one registered name (a test runs it over every experiment's method tables).
"""
from .async_kernel_ucb import AsyncKernelUCB
from .coop_kernel_ucb import (CoopKernelUCB, DistKernelUCB, EagerKernelUCB, IndIGPUCB, IndKernelUCB, IndLinUCB,
                              IndOFUL, NaiveIGPUCB, NaiveKernelUCB, NaiveLinUCB)
from .dis_kernel_ucb import ApproxDisKernelUCB, DisKernelUCB
from .duets import DUETS
from .fn_ucb import FNUCB, FNUCBNoAggregation, FNUCBOnlyA, FNUCBOnlyB
from .kernel_ucb import KernelUCBAgent, NKernelUCB, OneKernelUCB
from .linear import DisLinUCB, FedGLBUCB, FedLinUCB, NLinUCB
from .neural_baselines import (KernelTS, KernelUCBFN, LinearTS, LinearUCB, NeuralTS, NeuralTSDiag, NeuralUCB,
                               NeuralUCBDiag)
from ..validation import check, fail, one_of

ALGORITHMS = {
    "DUETS": DUETS,
    "DisKernelUCB": DisKernelUCB,
    "ApproxDisKernelUCB": ApproxDisKernelUCB,
    "N-KernelUCB": NKernelUCB,
    "OneKernelUCB": OneKernelUCB,
    "AsyncKernelUCB": AsyncKernelUCB,
    "N-LinUCB": NLinUCB,
    "DisLinUCB": DisLinUCB,
    "FedLinUCB": FedLinUCB,
    "FedGLB-UCB": FedGLBUCB,
    "FN-UCB": FNUCB,
    "FN-UCB [only UCB_a]": FNUCBOnlyA,
    "FN-UCB [only UCB_b]": FNUCBOnlyB,
    "FN-UCB [no aggregation]": FNUCBNoAggregation,
    "NeuralUCB": NeuralUCB,
    "NeuralTS": NeuralTS,
    "NeuralUCB [diag]": NeuralUCBDiag,
    "NeuralTS [diag]": NeuralTSDiag,
    "LinearUCB": LinearUCB,
    "LinearTS": LinearTS,
    "KernelUCB (FN)": KernelUCBFN,
    "KernelTS": KernelTS,
    "Coop-KernelUCB": CoopKernelUCB,
    "Eager-KernelUCB": EagerKernelUCB,
    "Dist-KernelUCB": DistKernelUCB,
    "Ind-LinUCB": IndLinUCB,
    "Ind-OFUL": IndOFUL,
    "Ind-KernelUCB": IndKernelUCB,
    "Ind-IGP-UCB": IndIGPUCB,
    "Naive-LinUCB": NaiveLinUCB,
    "Naive-IGP-UCB": NaiveIGPUCB,
    "Naive-KernelUCB": NaiveKernelUCB,
}


# pure-exploration policies (CoPE-KB and its single-agent baselines), imported on first use
PE_ALGORITHMS = {
    "CoKernelFC": ("cope_kb", "CoKernelFC"),
    "CoKernelIndAlloc": ("cope_kb", "CoKernelIndAlloc"),
    "CoKernelFB": ("cope_kb", "CoKernelFB"),
    "CoKernelFBIndAlloc": ("cope_kb", "CoKernelFBIndAlloc"),
    "IndRAGE": ("rage", "IndRAGE"),
    "IndALBA": ("rage", "IndALBA"),
    "IndPolyALBA": ("rage", "IndPolyALBA"),
    "IndPeaceFB": ("rage", "IndPeaceFB"),
    "IndUniformFB": ("rage", "IndUniformFB"),
}


def get_pe_algorithm(name: str):
    import importlib

    check("name", name, one_of(*PE_ALGORITHMS))
    mod, cls = PE_ALGORITHMS[name]
    return getattr(importlib.import_module(f".{mod}", __name__), cls)


#: registry name -> display label, where they differ (every other registered name is its own label): the spelling
#: of the paper that compares the method (Async-KernelUCB's paper for its two methods; CoPE-KB's for IndAlloc)
LABELS = {
    "AsyncKernelUCB": "Async-KernelUCB",
    "ApproxDisKernelUCB": "Approx-DisKernelUCB",
    "CoKernelIndAlloc": "CoKernel-IndAlloc",
    "CoKernelFBIndAlloc": "CoKernelFB-IndAlloc",
}
#: another paper's spelling of a registered method -> its registry name
ALIASES = {
    "NKernelUCB": "N-KernelUCB",  # the Async-KernelUCB paper's spelling (DUETS' paper: N-KernelUCB)
    # the Coop-KernelUCB paper's legend: each agent runs the single-agent method alone
    "LinUCB": "Ind-LinUCB",
    "OFUL": "Ind-OFUL",
    "KernelUCB": "Ind-KernelUCB",
    "IGP-UCB": "Ind-IGP-UCB",
}
#: tags after a method's label or name that mark a variant of it (two readings A/B; Peace's pooled data)
VARIANT_TAGS = ("-A", "-B", "-pooled")


def registered_names() -> list[str]:
    """Every registered name: the regret algorithms', then the pure-exploration ones'."""
    return list(ALGORITHMS) + list(PE_ALGORITHMS)


def label(name: str) -> str:
    """The display label of the registered method ``name`` (its registry key)."""
    check("name", name, one_of(*registered_names()))
    return LABELS.get(name, name)


def _exact_name(display: str) -> str | None:
    if display in ALGORITHMS or display in PE_ALGORITHMS:
        return display
    for name, lab in LABELS.items():
        if lab == display:
            return name
    return ALIASES.get(display)


def name_of(display: str) -> str:
    """The registered name of a display name: a registry name, a :data:`LABELS` label, a paper spelling of
    :data:`ALIASES`, or a variant of one of these (followed by a :data:`VARIANT_TAGS` tag or by a note in
    brackets or parentheses, ``" [...]"``, ``" (...)"``). Raises ``ValueError`` for a name that resolves to no registered method."""
    name = _exact_name(display)
    for opening, closing in ((" [", "]"), (" (", ")")) if name is None else ():
        if display.endswith(closing) and opening in display:
            name = _exact_name(display[:display.rindex(opening)])
            if name is not None:
                break
    for tag in VARIANT_TAGS if name is None else ():
        if display.endswith(tag):
            name = _exact_name(display[:-len(tag)])
            if name is not None:
                break
    if name is None:
        fail("display", display, "a registry name, a label of LABELS, a paper spelling of ALIASES, or one of these "
             f"followed by a tag of {VARIANT_TAGS}, ' [...]' or ' (...)'")
    return name


def get_algorithm(name: str):
    return ALGORITHMS[check("name", name, one_of(*ALGORITHMS))]


__all__ = ["ALGORITHMS", "get_algorithm", "PE_ALGORITHMS", "get_pe_algorithm", "LABELS", "ALIASES", "VARIANT_TAGS",
           "label", "name_of", "registered_names", "DUETS", "DisKernelUCB", "ApproxDisKernelUCB",
           "NKernelUCB", "OneKernelUCB", "KernelUCBAgent"]
