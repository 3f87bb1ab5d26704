"""The environment files agree with each other.

pyproject.toml is the source of the pins; environment.yml (conda) must list the same packages at the
same versions, requirements.txt (the full lock that `make env` uses as constraints) must agree with
both, and torch must be the CPU build 2.13.0 that the machine provides.
"""

from __future__ import annotations

import json
import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TORCH_VERSION = "2.13.0"
IGNORED = {"python", "pip"}
_SPEC = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(==|=)?\s*([^\s;#]*)")


def normalise(name: str) -> str:
    """PEP 503 name normalisation: ``Scikit_Learn`` -> ``scikit-learn``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_spec(spec: str) -> tuple[str, str | None]:
    """``'numpy==2.4.6'`` (pip) or ``'numpy=2.4.6'`` (conda) -> ``('numpy', '2.4.6')``.

    Returns ``(name, None)`` when the spec is not an exact pin.
    """
    m = _SPEC.match(spec)
    assert m, f"cannot parse requirement {spec!r}"
    name, op, version = m.groups()
    rest = spec[m.end():].strip()
    exact = op is not None and version != "" and not rest.startswith((",", "<", ">", "!", "~"))
    exact = exact and not any(c in version for c in "*<>!~,")
    return normalise(name), (version if exact else None)


def _pins(specs: list[str], where: str) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for spec in specs:
        name, version = parse_spec(spec)
        assert name not in out, f"{name} listed twice in {where}"
        out[name] = version
    return out


def pyproject_specs() -> list[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = data["project"]
    specs = list(project.get("dependencies", []))
    for group in project.get("optional-dependencies", {}).values():
        specs.extend(group)
    return specs


def environment_specs(text: str) -> list[str]:
    """Every package of ``dependencies:`` in a conda environment file, conda and pip entries alike.

    A small parser for the plain structure environment.yml has (top-level keys, ``- item`` lists and
    one nested ``- pip:`` list), so that the test needs no YAML library.
    """
    specs: list[str] = []
    section = None
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        if not line[0].isspace() and not line.startswith("-"):
            section = line.split(":", 1)[0].strip()
            continue
        if section != "dependencies":
            continue
        item = line.strip()
        assert item.startswith("- "), f"unexpected line in environment.yml: {raw!r}"
        item = item[2:].strip().strip("'\"")
        if item.endswith(":"):  # the `- pip:` key that opens the pip list
            continue
        specs.append(item)
    return specs


def requirements_specs() -> list[str]:
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


def without_ignored(pins: dict[str, str | None]) -> dict[str, str | None]:
    return {k: v for k, v in pins.items() if k not in IGNORED}


@pytest.fixture(scope="module")
def project_pins() -> dict[str, str | None]:
    return _pins(pyproject_specs(), "pyproject.toml")


@pytest.fixture(scope="module")
def environment_pins() -> dict[str, str | None]:
    text = (ROOT / "environment.yml").read_text()
    return _pins(environment_specs(text), "environment.yml")


def test_parse_spec():
    assert parse_spec("numpy==2.4.6") == ("numpy", "2.4.6")
    assert parse_spec("python=3.11") == ("python", "3.11")
    assert parse_spec("Scikit_Learn == 1.9.1") == ("scikit-learn", "1.9.1")
    assert parse_spec("pip") == ("pip", None)
    assert parse_spec("numpy>=2") == ("numpy", None)
    assert parse_spec("numpy==2.*") == ("numpy", None)
    assert parse_spec("numpy==2.4.6 ; python_version >= '3.11'") == ("numpy", "2.4.6")


def test_environment_parser_on_a_sample():
    sample = "name: x\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.11  # comment\n  - pip\n" \
             "  - pip:\n      - torch==2.13.0\n      - 'numpy==2.4.6'\n"
    assert environment_specs(sample) == ["python=3.11", "pip", "torch==2.13.0", "numpy==2.4.6"]


def test_pyproject_pins_are_exact(project_pins):
    loose = sorted(name for name, version in project_pins.items() if version is None)
    assert not loose, f"pyproject.toml: not pinned to one version: {loose}"


def test_environment_matches_pyproject(project_pins, environment_pins):
    env = without_ignored(environment_pins)
    proj = without_ignored(project_pins)
    assert sorted(env) == sorted(proj), (
        f"only in pyproject.toml: {sorted(set(proj) - set(env))}; "
        f"only in environment.yml: {sorted(set(env) - set(proj))}"
    )
    differ = {n: (proj[n], env[n]) for n in proj if proj[n] != env[n]}
    assert not differ, f"versions differ (pyproject, environment.yml): {differ}"


def test_environment_yml_is_valid_yaml():
    yaml = pytest.importorskip("yaml")
    text = (ROOT / "environment.yml").read_text()
    data = yaml.safe_load(text)
    flat: list[str] = []
    for dep in data["dependencies"]:
        if isinstance(dep, dict):
            flat.extend(dep["pip"])
        else:
            flat.append(dep)
    assert flat == environment_specs(text)
    assert "python=3.11" in flat


def test_torch_is_pinned(project_pins, environment_pins):
    assert project_pins["torch"] == TORCH_VERSION
    assert environment_pins["torch"] == TORCH_VERSION
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(rf"^TORCH_VERSION \?= {re.escape(TORCH_VERSION)}$", makefile, re.M)


def test_requirements_lock_agrees(project_pins):
    lock = _pins(requirements_specs(), "requirements.txt")
    loose = sorted(name for name, version in lock.items() if version is None)
    assert not loose, f"requirements.txt: not pinned: {loose}"
    assert lock.get("torch") == TORCH_VERSION, "requirements.txt: torch must read torch==2.13.0 (no +cpu tag)"
    differ = {n: (v, lock.get(n)) for n, v in without_ignored(project_pins).items() if lock.get(n) != v}
    assert not differ, f"pyproject.toml and requirements.txt differ (run `make lock`): {differ}"


def _installed_from_this_checkout() -> bool:
    # Several may be found: a stray bandits.egg-info in the checkout shadows the venv's dist-info.
    for dist in metadata.distributions(name="bandits"):
        direct = dist.read_text("direct_url.json")
        if direct and json.loads(direct).get("url", "").rstrip("/") == ROOT.as_uri().rstrip("/"):
            return True
    return False


@pytest.mark.skipif(not _installed_from_this_checkout(), reason="bandits is not installed from this checkout")
def test_installed_versions_match_pins():
    """The interpreter running the tests (the venv of `make env`) has what the lock says."""
    lock = _pins(requirements_specs(), "requirements.txt")
    wrong = {}
    for name, version in lock.items():
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue  # a package that this platform or Python does not need
        if have.split("+")[0] != version:
            wrong[name] = (version, have)
    assert not wrong, f"installed versions differ from requirements.txt (run `make env`): {wrong}"
