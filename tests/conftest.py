"""Shared pytest fixtures."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

DATA_ENV_VARS = ("BANDITS_DATA_DIR", "BANDIT_DATA_DIR", "BANDITS_DATA_BASE_URL")


@pytest.fixture
def real_data_dir() -> Path:
    """The real data directory named by $BANDITS_DATA_DIR; skips the test when it is not set up."""
    value = os.environ.get("BANDITS_DATA_DIR", "").strip()
    if not value:
        pytest.skip("BANDITS_DATA_DIR is not set (point it at the datasets, e.g. /work/shared/data)")
    path = Path(value)
    if not path.is_dir():
        pytest.skip(f"BANDITS_DATA_DIR={value} is not a directory")
    return path


@pytest.fixture
def real_file(real_data_dir):
    """``real_file("magic/magic04.data")`` -> path under the real data directory, or skip."""

    def get(relpath: str) -> Path:
        path = real_data_dir / relpath
        if not path.is_file():
            pytest.skip(f"{relpath} is absent from BANDITS_DATA_DIR={real_data_dir}")
        return path

    return get


@pytest.fixture
def no_data_env(monkeypatch):
    """Removes the data-directory and download-mirror variables for the test."""
    for var in DATA_ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature of the base class
        pass


@pytest.fixture
def local_http_server(tmp_path_factory, monkeypatch):
    """A static file server on 127.0.0.1 (ephemeral port) in a thread, shut down after the test.

    Yields ``.root`` (the served folder: write files there) and ``.url`` (``http://127.0.0.1:PORT``).
    Proxies are bypassed for 127.0.0.1.
    """
    root = tmp_path_factory.mktemp("www")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              name="test-http-server", daemon=True)
    thread.start()
    try:
        yield SimpleNamespace(root=root, url=f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
