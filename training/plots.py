"""The paper's figure 4 idea: how cosine similarity is distributed for each label."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def plot_similarity_density(
    scores: np.ndarray, labels: np.ndarray, path: Path, title: str = "Cosine similarity by label"
) -> Path:
    """Write a PNG with one density curve (and a faint histogram) per label value."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on servers
    import matplotlib.pyplot as plt
    from scipy.stats import gaussian_kde

    fig, ax = plt.subplots(figsize=(7, 4), dpi=120)
    grid = np.linspace(min(-0.2, float(scores.min())), 1.0, 300)
    names = {0.0: "non-duplicate (0)", 1.0: "duplicate (1)"}
    colors = ["tab:blue", "tab:red", "tab:green", "tab:purple", "tab:orange"]
    for index, value in enumerate(np.unique(labels)):
        chosen = scores[labels == value]
        color = colors[index % len(colors)]
        label = f"{names.get(float(value), f'label {value:g}')}  n={len(chosen)}"
        ax.hist(chosen, bins=40, range=(grid[0], grid[-1]), density=True, alpha=0.2, color=color)
        if len(chosen) > 1 and np.ptp(chosen) > 0:
            ax.plot(grid, gaussian_kde(chosen)(grid), color=color, label=label)
        else:
            ax.axvline(float(chosen[0]), color=color, label=label)
    ax.set(xlabel="cosine similarity", ylabel="density", title=title)
    ax.legend()
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
