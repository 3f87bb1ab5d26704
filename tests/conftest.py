"""Shared pytest fixtures."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

DATA_ENV_VARS = ("BANDITS_DATA_DIR", "BANDIT_DATA_DIR", "BANDITS_DATA_BASE_URL")


@pytest.fixture
def real_data_dir() -> Path:
    """The real data home (``bandits.data.data_dir()``: $BANDITS_DATA_DIR, else the user cache);
    skips the test when it is not a folder."""
    from bandits.data import data_dir

    path = data_dir()
    if not path.is_dir():
        pytest.skip(f"no data home at {path} (set BANDITS_DATA_DIR, e.g. to /work/shared/data, or "
                    f"run `python -m bandits.data ensure`)")
    return path


@pytest.fixture
def real_file(real_data_dir):
    """``real_file("magic/magic04.data")`` -> path under the real data directory, or skip."""

    def get(relpath: str) -> Path:
        path = real_data_dir / relpath
        if not path.is_file():
            pytest.skip(f"{relpath} is absent from the data home {real_data_dir}")
        return path

    return get


@pytest.fixture
def no_data_env(monkeypatch, tmp_path_factory):
    """Removes the data-directory and download-mirror variables for the test, and points the user
    cache (``$XDG_CACHE_HOME``, the default data home's parent on Linux) at an empty temporary
    folder, so that no test reads or writes the real per-user cache."""
    for var in DATA_ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
    return monkeypatch


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files silently and records each requested path in ``requests``."""

    def __init__(self, *args, requests: list | None = None, **kwargs):
        self.requests = requests if requests is not None else []
        super().__init__(*args, **kwargs)  # handles the request

    def send_head(self):
        self.requests.append(self.path)
        return super().send_head()

    def log_message(self, format, *args):  # noqa: A002 - signature of the base class
        pass


@pytest.fixture
def local_http_server(tmp_path_factory, monkeypatch):
    """A static file server on 127.0.0.1 (ephemeral port) in a thread, shut down after the test.

    Yields ``.root`` (the served folder: write files there), ``.url`` (``http://127.0.0.1:PORT``)
    and ``.requests`` (the paths requested so far, in order). Proxies are bypassed for 127.0.0.1.
    """
    root = tmp_path_factory.mktemp("www")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    requests: list[str] = []
    handler = functools.partial(_QuietHandler, directory=str(root), requests=requests)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              name="test-http-server", daemon=True)
    thread.start()
    try:
        yield SimpleNamespace(root=root, url=f"http://127.0.0.1:{server.server_address[1]}",
                              requests=requests)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
