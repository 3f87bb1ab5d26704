"""The companion website (``make site``) opened in a real headless browser (issue 26).

The site is built once into a temporary folder (the same two commands as ``make site``: ``python -m
bandits.report site`` then ``sphinx-build``), served on localhost, and every page is opened in Debian's
Chromium driven by chromedriver (selenium): each page renders (a title and a main text), every ``<img>``
loaded, every internal link points at a page or file of the site (and an anchor that exists), and the
browser console has no error. Requests that would leave localhost fail (``--host-resolver-rules``), so a
page that needs the network shows up as a console error. A screenshot of the front page is kept in
``results/site/front.png`` (and in the pytest tmp folder).

Skipped, with the reason, when Chromium, chromedriver, selenium or Sphinx cannot be had
(``.ci/run`` installs ``chromium`` and ``chromium-driver`` with apt-get).
"""
from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = next((p for p in (os.environ.get("CHROMIUM"), shutil.which("chromium"), shutil.which("chromium-browser"),
                             "/usr/bin/chromium") if p and os.path.exists(p)), None)
CHROMEDRIVER = next((p for p in (os.environ.get("CHROMEDRIVER"), shutil.which("chromedriver"), "/usr/bin/chromedriver")
                     if p and os.path.exists(p)), None)


def _need_tools():
    if CHROMIUM is None:
        pytest.skip("no Chromium here (Debian: apt-get install chromium chromium-driver; .ci/run does)")
    if CHROMEDRIVER is None:
        pytest.skip("no chromedriver here (Debian: apt-get install chromium-driver; .ci/run does)")
    pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[dev]')")
    pytest.importorskip("sphinx", reason="sphinx is not installed (pip install -e '.[dev]')")
    pytest.importorskip("myst_nb", reason="myst-nb is not installed (pip install -e '.[dev]')")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built once (``make site``'s two steps), into a temporary folder."""
    _need_tools()
    out = tmp_path_factory.mktemp("site") / "html"
    env = dict(os.environ, OMP_NUM_THREADS="1")
    subprocess.run([sys.executable, "-m", "bandits.report", "site"], cwd=ROOT, check=True, env=env,
                   capture_output=True, timeout=300)
    r = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-j", "2", "docs", str(out)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    assert (out / "index.html").exists()
    return out


@pytest.fixture(scope="module")
def server(site):
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser(server, tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-extensions", "--window-size=1280,1000",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    except Exception as exc:  # a broken or mismatched browser: say so rather than fail
        pytest.skip(f"Chromium could not be started by chromedriver: {type(exc).__name__}: {str(exc)[:300]}")
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _pages(site: Path) -> list[str]:
    """Every HTML page of the site but Sphinx's highlighted sources (``_modules/``) and ``_sources/``."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if not p.relative_to(site).as_posix().startswith(("_modules/", "_sources/", "_static/")))


PAGE_REPORT = """
return {
  title: document.title,
  main: ((document.querySelector('main, article, [role=main]') || document.body || {}).innerText || '').length,
  images: Array.from(document.images).map(i => ({src: i.currentSrc || i.src, ok: i.complete && i.naturalWidth > 0})),
  links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
  ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
  ready: document.readyState,
};
"""


def _settled_report(browser) -> dict:
    """PAGE_REPORT once the document is complete and its images decoded (or after 10 s): on a loaded machine
    ``get()`` can return before a long page's images are decoded."""
    rep = browser.execute_script(PAGE_REPORT)  # a document without a body yet reports 0 characters: retried
    for _ in range(40):
        if rep["ready"] == "complete" and all(i["ok"] for i in rep["images"]):
            break
        time.sleep(0.25)
        rep = browser.execute_script(PAGE_REPORT)
    return rep


def test_every_page_renders_with_images_links_and_no_console_error(site, server, browser, tmp_path):
    pages = _pages(site)
    assert {"index.html", "claims.html", "api.html", "adding_a_paper.html"} <= set(pages)
    assert any(p.startswith("papers/") for p in pages) and any(p.startswith("_gen/notebooks/") for p in pages)
    problems, seen_ids = [], {}
    browser.get(server)  # flush the log once
    browser.get_log("browser")
    reports = {}
    for page in pages:
        url = urljoin(server, page)
        browser.get(url)
        rep = _settled_report(browser)
        reports[page] = rep
        seen_ids[page] = set(rep["ids"])
        if rep["ready"] != "complete" or not rep["title"] or rep["main"] < 50:
            problems.append(f"{page}: did not render (title {rep['title']!r}, {rep['main']} characters, "
                            f"document {rep['ready']})")
        for img in rep["images"]:
            if not img["ok"]:
                problems.append(f"{page}: broken image {img['src']}")
        for entry in browser.get_log("browser"):
            if entry.get("level") == "SEVERE":
                problems.append(f"{page}: console error: {entry.get('message', '')[:300]}")
    # internal links: the target file exists; an anchor exists on the target page (pages of the site only)
    for page, rep in reports.items():
        for href in rep["links"]:
            u = urlparse(href)
            if not href.startswith(server) or u.scheme not in ("http", "https"):
                continue
            path = unquote(u.path).lstrip("/") or "index.html"
            if path.endswith("/"):
                path += "index.html"
            if not (site / path).exists():
                problems.append(f"{page}: link to a missing file {path}")
            elif u.fragment and path in seen_ids and unquote(u.fragment) not in seen_ids[path]:
                problems.append(f"{page}: link to a missing anchor {path}#{u.fragment}")
    assert not problems, f"{len(problems)} problem(s) over {len(pages)} pages:\n" + "\n".join(problems[:60])


def test_front_page_screenshot_and_figures(site, server, browser, tmp_path):
    browser.get(server)
    rep = _settled_report(browser)
    assert any("pareto_sync" in i["src"] and i["ok"] for i in rep["images"]), rep["images"]
    shot = tmp_path / "front.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    keep = ROOT / "results" / "site"
    keep.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, keep / "front.png")
    # a paper page shows its figures and its claims table with verdicts
    browser.get(urljoin(server, "papers/duets.html"))
    rep = _settled_report(browser)
    assert sum(i["ok"] for i in rep["images"]) >= 3
    text = browser.find_element("tag name", "body").text
    assert "PASS" in text and "fig1-regret-h1" in text


# ------------------------------------------------------------------------- the generated pages (no browser)
def test_claims_page_and_readme_summary_count_kinds_apart(tmp_path):
    from bandits import report

    claims = [
        {"id": "h", "claim": "A beats B", "check": "paired < 0", "value": "1", "verdict": "FAIL", "kind": "paper",
         "quote": "verbatim", "source": "§5", "cause": "setting", "cause_note": "λ not given",
         "effect": 2.0, "interval": [1.0, 3.0], "level": 0.95, "method": "t"},
        {"id": "i", "claim": "ledger adds up", "check": "==", "value": "0", "verdict": "PASS", "kind": "implementation"},
        {"id": "p", "claim": "C | D", "check": "x", "value": "2", "verdict": "INCONCLUSIVE", "kind": "paper"},
    ]
    full = {"x_theory": {"paper": "DUETS", "claims": claims[1:]}, "x": {"paper": "DUETS", "claims": claims[:1]},
            "old": {"paper": "Old", "claims": [{"id": "o", "claim": "c", "check": "k", "value": "v", "passed": True}]}}
    summary = report.readme_summary(full, quick={"x": (1, 2, 3, 4, 5), "x_theory": (1, 0, 0, 1, 1)})
    row = next(line for line in summary.splitlines() if line.startswith("| DUETS"))
    assert "| 0 / 1 / 1 | 1 of 1 | 2 / 2 / 3; 5 of 6 | **FAIL**: A beats B (`h`) |" in row  # headline: main notebook's first paper claim
    assert "not labelled yet" in next(line for line in summary.splitlines() if line.startswith("| Old"))
    assert summary.index("| DUETS") < summary.index("| Old")  # the papers' order, then the others
    page = report.claims_page(full)
    assert page.index("## DUETS") < page.index("### x (") < page.index("### x_theory (")
    assert "depends on a setting the paper does not give: λ not given" in page
    assert "2 [1, 3] (95% t)" in page and "C \\| D" in page and "| implementation |" in page
    assert "[figures/x](figures/x)" in page and "`figures/x`" in report.claims_page(full, links=False)


def test_a_superseded_run_is_listed_but_not_counted():
    from bandits import report

    c = {"id": "a", "claim": "c", "check": "k", "value": "v", "verdict": "FAIL", "kind": "paper"}
    full = {"y": {"paper": "FN-UCB", "claims": [c], "superseded": "an older run"},
            "y_theory": {"paper": "FN-UCB", "claims": [dict(c, id="b", verdict="PASS")]}}
    row = next(line for line in report.readme_summary(full, quick={}).splitlines() if line.startswith("| FN-UCB"))
    assert "| 1 / 0 / 0 |" in row and "not counted" in row
    page = report.claims_page(full)
    assert "Superseded, not counted above:** an older run" in page and "`a`" in page
    assert "Paper claims: 1 PASS, 0 FAIL, 0 INCONCLUSIVE" in page


def test_site_sources_are_generated(tmp_path):
    from bandits import report

    figs = tmp_path / "figures"
    (figs / "nb").mkdir(parents=True)
    (figs / "nb" / "claims.json").write_text(
        '{"paper": "FN-UCB", "claims": [{"id": "a", "claim": "c", "check": "k", "value": "v", "verdict": "PASS"}]}')
    (figs / "nb" / "fig.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (figs / "nb" / "nb.ipynb").write_text("{}")
    written = report.write_site_sources(docs=tmp_path / "docs", figures=figs)
    gen = tmp_path / "docs" / "_gen"
    assert (gen / "fn_ucb.md").exists() and (gen / "CLAIMS.md").exists()
    assert (gen / "notebooks" / "nb.ipynb").exists() and (gen / "figures" / "nb" / "fig.png").exists()
    text = (gen / "fn_ucb.md").read_text()
    assert "../_gen/figures/nb/fig.png" in text and "../_gen/notebooks/nb.ipynb" in text and "**PASS**" in text
    assert len(written) == 4
