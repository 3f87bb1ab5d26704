"""bandits: a reproducible companion to five papers on collaborative, distributed and
federated kernel and neural bandits (DUETS, Async-KernelUCB, CoPE-KB, Coop-KernelUCB, FN-UCB).

Layers, bottom up: linalg → kernels → estimators, design → data, envs → comm → sim (loops and
policy bases) → algorithms → runner → experiments → plotting, report, bench. See README.md.
"""
__version__ = "0.1.0"
