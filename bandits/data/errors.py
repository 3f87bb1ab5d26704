"""The data package's exceptions (one hierarchy; every message says how to fix the problem)."""

from __future__ import annotations

__all__ = ["DataError", "DataNotFoundError", "DataChecksumError", "DataUnavailableError"]


class DataError(Exception):
    """Base class of this package's data errors."""


class DataNotFoundError(DataError, FileNotFoundError):
    """A dataset file is absent from the data home (or the data home is not a folder)."""


class DataChecksumError(DataError, ValueError):
    """A dataset file's sha256 differs from the registry's (corrupt, truncated or another version)."""

    def __init__(self, message: str, *, path=None, expected=None, found=None):
        super().__init__(message)
        self.path = path
        self.expected = expected
        self.found = found


class DataUnavailableError(DataNotFoundError):
    """``ensure`` could not obtain every needed file (no network, a server error, a bad checksum).

    ``files`` lists the ``DataFile`` entries still missing or invalid; ``root`` is the data home.
    """

    def __init__(self, message: str, *, files=(), root=None):
        super().__init__(message)
        self.files = tuple(files)
        self.root = root
