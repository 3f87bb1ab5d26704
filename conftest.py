"""Root pytest hooks for the notebooks run under nbval (``make test``).

A notebook declares the datasets it reads in its metadata (kept in the ``.py`` header by jupytext)::

    # jupyter:
    #   bandits:
    #     datasets: [magic, mushroom, movielens, yelp]

Before nbval runs a notebook, ``bandits.data.missing(names)`` lists the registry files (``DataFile``
entries) that are absent from the data home or fail their checksum. When any is, every cell of that
notebook is SKIPPED (no kernel is started) with a message naming the missing files, their download
addresses, the data home and the variable ``BANDITS_DATA_DIR``, so a machine without the data (no
network for ``make data``) still passes ``make test``, and the summary (``pytest -rs``) says which
notebooks were not checked and why. Notebooks that declare no datasets always run.
"""

from __future__ import annotations

import importlib
import os
import warnings

ENV_VAR = "BANDITS_DATA_DIR"


def notebook_datasets(metadata) -> list[str]:
    """The dataset names a notebook declares in ``metadata["bandits"]["datasets"]`` (else [])."""
    names = (metadata or {}).get("bandits", {}).get("datasets", []) or []
    if isinstance(names, str) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"metadata bandits.datasets must be a list of dataset names, got {names!r}")
    return list(names)


def _data_home(data) -> str:
    for getter in ("data_home", "data_dir"):
        fn = getattr(data, getter, None)
        if callable(fn):
            try:
                return str(fn())
            except Exception:  # a data home that cannot be resolved is reported, not raised
                continue
    return "(unresolved)"


def missing_data_message(notebook: str, names, files, home: str) -> str:
    """The skip reason: the missing files (with addresses), the data home, the variable, the fix.

    ``notebook`` is named only when it is not the test location pytest prints anyway (``""``)."""
    listed = "; ".join(
        f"{getattr(f, 'path', f)}" + (f" <{f.url}>" if getattr(f, "url", None) else "") for f in files
    )
    where = (f"{home} (from {ENV_VAR})" if os.environ.get(ENV_VAR)
             else f"{home} (the default; {ENV_VAR} is unset)")
    return (f"{notebook + ': ' if notebook else ''}data missing for datasets {', '.join(names)} "
            f"in the data home {where}: {listed}. Run `make data` (python -m bandits.data ensure) "
            f"with network access, or set {ENV_VAR} to a folder that holds these files.")


def skip_reason(notebook: str, metadata, located: bool = False) -> str | None:
    """Why a notebook cannot run here (its declared data are missing), or None when it can.

    ``located``: the reason is shown next to the notebook's path (pytest's skip summary), so the
    message leaves the path out."""
    names = notebook_datasets(metadata)
    if not names:
        return None
    try:
        data = importlib.import_module("bandits.data")
        missing = data.missing
    except (ImportError, AttributeError) as exc:
        warnings.warn(f"{notebook}: cannot check its datasets ({exc}); running it anyway", stacklevel=2)
        return None
    files = list(missing(names))
    if not files:
        return None
    return missing_data_message("" if located else notebook, names, files, _data_home(data))


def pytest_collection_modifyitems(session, config, items):
    import pytest

    try:
        from nbval.plugin import IPyNbCell
    except ImportError:  # nbval not installed: no notebook items to look at
        return
    reasons: dict[object, str | None] = {}
    for item in items:
        if not isinstance(item, IPyNbCell):
            continue
        nbfile = item.parent
        if nbfile not in reasons:
            rel = os.path.relpath(str(nbfile.path), str(config.rootpath))
            reasons[nbfile] = skip_reason(rel, getattr(nbfile, "nb", {}).get("metadata", {}), located=True)
        if reasons[nbfile]:
            item.add_marker(pytest.mark.skip(reason=reasons[nbfile]))
