"""Algorithms (layer 6): one module per family; shared single-agent cores live once.

``ALGORITHMS`` maps the names used in experiment configs to policy classes.
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

    if name not in PE_ALGORITHMS:
        raise ValueError(f"unknown pure-exploration algorithm {name!r}; allowed: {', '.join(PE_ALGORITHMS)}")
    mod, cls = PE_ALGORITHMS[name]
    return getattr(importlib.import_module(f".{mod}", __name__), cls)


def get_algorithm(name: str):
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise ValueError(f"unknown algorithm {name!r}; allowed: {', '.join(ALGORITHMS)}") from None


__all__ = ["ALGORITHMS", "get_algorithm", "PE_ALGORITHMS", "get_pe_algorithm", "DUETS", "DisKernelUCB", "ApproxDisKernelUCB",
           "NKernelUCB", "OneKernelUCB", "KernelUCBAgent"]
