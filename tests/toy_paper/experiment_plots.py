"""The toy paper's figure (docs/adding_a_paper.md §4), drawn from the runs of :mod:`toy_paper.experiment`. In the
package this module would be ``bandits/experiments/<name>_plots.py``, which the run cache's code fingerprint
leaves out.
"""
from __future__ import annotations

import numpy as np
import pandas as pd



def plot_toy(runs: pd.DataFrame):
    """Final regret per protocol, mean with one standard error."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    g = runs.groupby("protocol").R_T
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar(list(g.mean().index), g.mean().to_numpy(), yerr=(g.std() / np.sqrt(g.count())).to_numpy())
    ax.set_ylabel("R(T)")
    return fig
