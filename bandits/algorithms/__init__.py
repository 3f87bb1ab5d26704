"""Algorithms (layer 6): one module per family; shared single-agent cores live once.

``ALGORITHMS`` maps the names used in experiment configs to policy classes.
"""
from .dis_kernel_ucb import ApproxDisKernelUCB, DisKernelUCB
from .duets import DUETS
from .kernel_ucb import KernelUCBAgent, NKernelUCB

ALGORITHMS = {
    "DUETS": DUETS,
    "DisKernelUCB": DisKernelUCB,
    "ApproxDisKernelUCB": ApproxDisKernelUCB,
    "N-KernelUCB": NKernelUCB,
}


def get_algorithm(name: str):
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise ValueError(f"unknown algorithm {name!r}; allowed: {', '.join(ALGORITHMS)}") from None


__all__ = ["ALGORITHMS", "get_algorithm", "DUETS", "DisKernelUCB", "ApproxDisKernelUCB",
           "NKernelUCB", "KernelUCBAgent"]
