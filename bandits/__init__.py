"""bandits: a reproducible companion to five papers on collaborative, distributed and
federated kernel and neural bandits (DUETS, Async-KernelUCB, CoPE-KB, Coop-KernelUCB, FN-UCB).

Layers, bottom up: linalg → kernels → estimators → envs → comm → algorithms → sim → runner →
experiments → plotting. See README.md.
"""
__version__ = "0.1.0"
