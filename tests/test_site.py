"""The companion website (``make site``) opened in a real headless browser.

The site is built once into a temporary folder (the same two commands as ``make site``: ``python -m
bandits.report site`` then ``sphinx-build``), served on localhost, and every page is opened in Debian's
Chromium driven by chromedriver (selenium) at 1366 × 900: each page renders (a title and a main text), every
``<img>`` loaded, every internal link points at a page or file of the site (and an anchor that exists), and
the browser console has no error. Requests that would leave localhost fail (``--host-resolver-rules``), and
every resource a page loaded is checked to come from localhost.

Every paper page of the manifest (:mod:`bandits.papers`) is read as a reader would: the summary of what holds,
fails and cannot be told yet comes before the figures and tables; the verdict and cause columns of every
claims table lie within the window's width; every claim id of the page's notebooks is an anchor that a link
scrolls to; every figure has a caption. A screenshot of each page (the first screen, 1366 × 900) is kept in
``results/site/<page>.png``, and copied to ``docs/screenshots/`` when ``BANDITS_SCREENSHOTS=docs`` is set
(the committed ones); the visible words of each page (closed ``<details>`` left out) in
``results/site/words.json``.

Skipped, with the reason, when Chromium, chromedriver, selenium or Sphinx cannot be had
(``.ci/run`` installs ``chromium`` and ``chromium-driver`` with apt-get).
"""
from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
WIDTH, HEIGHT = 1366, 900
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
    r = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-j", "1", "docs", str(out)],
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
                 "--disable-sync", "--disable-extensions", "--window-size=1366,900",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    except Exception as exc:  # a broken or mismatched browser: say so rather than fail
        pytest.skip(f"Chromium could not be started by chromedriver: {type(exc).__name__}: {str(exc)[:300]}")
    driver.set_page_load_timeout(60)
    driver.set_window_size(WIDTH, HEIGHT)
    # the window's inner size is what a reader sees: make it 1366 × 900 whatever the browser's frame takes
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight];")
    driver.set_window_size(2 * WIDTH - inner[0], 2 * HEIGHT - inner[1])
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


def _shoot(browser, name: str) -> Path:
    """A screenshot of the first screen, kept in results/site/<name>.png (and docs/screenshots/ on request),
    reduced to a 64-colour palette to stay small."""
    keep = ROOT / "results" / "site"
    keep.mkdir(parents=True, exist_ok=True)
    shot = keep / f"{name}.png"
    browser.execute_script("window.scrollTo(0, 0);")
    assert browser.save_screenshot(str(shot))
    try:
        from PIL import Image

        with Image.open(shot) as im:
            im.convert("RGB").quantize(colors=64).save(shot, optimize=True)
    except ImportError:
        pass
    if os.environ.get("BANDITS_SCREENSHOTS") == "docs":
        (ROOT / "docs" / "screenshots").mkdir(exist_ok=True)
        shutil.copyfile(shot, ROOT / "docs" / "screenshots" / f"{name}.png")
    return shot


VISIBLE_WORDS = "return ((document.querySelector('article') || document.body).innerText || '').split(/\\s+/).filter(Boolean).length;"
RESOURCES = "return performance.getEntriesByType('resource').map(e => e.name).concat([location.href]);"


def test_front_page_shows_the_verdicts_and_links_every_paper(site, server, browser):
    from bandits.papers import PAPERS

    browser.get(server)
    rep = _settled_report(browser)
    assert any("pareto_sync" in i["src"] and i["ok"] for i in rep["images"]), rep["images"]
    text = browser.find_element("tag name", "article").text
    for word in ("PASS", "FAIL", "INCONCLUSIVE", "paper claims", "implementation checks", "hypotheses"):
        assert word in text, f"the front page does not say {word!r}"
    for p in PAPERS:
        assert any(h.endswith(f"papers/{p.slug}.html") for h in rep["links"]), f"no link to {p.name}'s page"
        if p.url:
            assert p.url in rep["links"], f"no link to the paper {p.name} ({p.url})"
    assert _shoot(browser, "index").stat().st_size > 5_000


PAGE_LAYOUT = """
const vw = window.innerWidth;
const rect = e => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top + window.scrollY}; };
const first = sel => { const e = document.querySelector(sel); return e ? rect(e).top : null; };
const cols = [];
for (const t of document.querySelectorAll('table.claims-table')) {
  for (const tr of t.querySelectorAll('tr.claim-row, thead tr')) {
    const cells = tr.children;
    cols.push({row: tr.id || 'head', verdict: rect(cells[1]).right, cause: rect(cells[3]).right});
  }
}
// every rendered table: its right edge, and whether the frame around it scrolls sideways (a table wider than the
// article: the theme wraps it in a scrollable container whose hidden part a reader must scroll to)
const frame = t => { for (let e = t.parentElement; e && e.tagName !== 'ARTICLE'; e = e.parentElement) {
  if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible') return true; } return false; };
const tables = Array.from(document.querySelectorAll('article table')).map(t => ({r: t.getBoundingClientRect(), t: t}))
  .filter(x => x.r.width > 0).map(x => ({right: x.r.right, scrolls: frame(x.t), head: (x.t.innerText || '').slice(0, 60)}));
return {
  vw: vw, scrollWidth: document.documentElement.scrollWidth, tables: tables,
  summary: first('.claims-summary'), summaryText: (document.querySelector('.claims-summary') || {}).innerText || '',
  causes: first('.claims-causes'), firstFigure: first('figure'), firstTable: first('table.claims-table'),
  cols: cols,
  ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
  figures: Array.from(document.querySelectorAll('figure')).map(f => ({
      src: (f.querySelector('img') || {}).src || '',
      caption: ((f.querySelector('figcaption') || {}).innerText || '').trim()})),
};
"""


def _paper_pages():
    from bandits.papers import PAPERS

    return [p.slug for p in PAPERS]


@pytest.mark.parametrize("slug", _paper_pages())
def test_paper_page_reads_at_1366(site, server, browser, slug):
    import json

    from bandits.papers import by_slug

    paper = by_slug(slug)
    url = urljoin(server, f"papers/{slug}.html")
    browser.get(url)
    _settled_report(browser)
    assert browser.execute_script("return [window.innerWidth, window.innerHeight];") == [WIDTH, HEIGHT]
    lay = browser.execute_script(PAGE_LAYOUT)
    problems = []
    # the summary first: what holds, what fails, what cannot be told yet, before any figure or table
    if lay["summary"] is None:
        problems.append("no summary of the verdicts")
    else:
        for later in ("causes", "firstFigure", "firstTable"):
            if lay[later] is not None and lay[later] < lay["summary"]:
                problems.append(f"the summary comes after {later}")
        if lay["summary"] > 2 * HEIGHT:
            problems.append(f"the summary starts {lay['summary']:.0f} px down, below the second screen")
        if not any(w in lay["summaryText"] for w in ("holds", "fails", "cannot tell yet")):
            problems.append(f"the summary says neither holds, fails nor cannot tell: {lay['summaryText'][:200]!r}")
    # verdict and cause within the window; no sideways scrolling
    if lay["scrollWidth"] > lay["vw"]:
        problems.append(f"the page scrolls sideways ({lay['scrollWidth']} px wide in a {lay['vw']} px window)")
    wide = [c["row"] for c in lay["cols"] if c["verdict"] > lay["vw"] or c["cause"] > lay["vw"]]
    if wide:
        problems.append(f"{len(wide)} rows whose verdict or cause lies beyond {lay['vw']} px: {wide[:5]}")
    if not lay["cols"]:
        problems.append("no claims table")
    cut = [t["head"] for t in lay["tables"] if t["right"] > lay["vw"] or t["scrolls"]]
    if cut:
        problems.append(f"{len(cut)} tables reach beyond the window's width (scrolled sideways in their frame): {cut[:3]}")
    # every claim of the page's notebooks is an anchor, once
    ids = lay["ids"]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        problems.append(f"ids used twice: {dupes[:10]}")
    anchors = []
    for nb in paper.folders:
        f = ROOT / "figures" / nb / "claims.json"
        if f.exists():
            for c in json.loads(f.read_text())["claims"]:
                a = c["id"] if c["id"] in ids else f"{nb}-{c['id']}"
                if a not in ids:
                    problems.append(f"claim {nb}:{c['id']} has no anchor")
                anchors.append(a)
    # a link to an anchor scrolls to it (the last one: the farthest down)
    if anchors:
        browser.get(f"{url}#{anchors[-1]}")
        top = browser.execute_script(f"return document.getElementById({json.dumps(anchors[-1])}).getBoundingClientRect().top;")
        if not 0 <= top < HEIGHT:
            problems.append(f"#{anchors[-1]} does not scroll into view (top {top})")
    # figures: each captioned, each image once
    srcs = [f["src"] for f in lay["figures"]]
    for f in lay["figures"]:
        cap = f["caption"]
        if len(cap) < 30 or re.fullmatch(r"`?figures/\S+`?", cap):
            problems.append(f"figure without a caption: {f['src']} ({cap!r})")
    if len(srcs) != len(set(srcs)):
        problems.append(f"an image shown twice: {sorted({s for s in srcs if srcs.count(s) > 1})}")
    # nothing loaded from outside localhost
    host = urlparse(server).netloc
    outside = [r for r in browser.execute_script(RESOURCES) if urlparse(r).netloc not in (host, "") and not r.startswith("data:")]
    if outside:
        problems.append(f"requests that leave localhost: {outside[:5]}")
    browser.get(url)
    _settled_report(browser)
    _record_words(f"papers/{slug}", browser.execute_script(VISIBLE_WORDS))
    assert _shoot(browser, slug).stat().st_size > 5_000
    assert not problems, f"papers/{slug}.html at {WIDTH}×{HEIGHT}:\n" + "\n".join(problems)


def _record_words(page: str, n: int) -> None:
    import json

    f = ROOT / "results" / "site" / "words.json"
    f.parent.mkdir(parents=True, exist_ok=True)
    words = json.loads(f.read_text()) if f.exists() else {}
    words[page] = n
    f.write_text(json.dumps(words, indent=1, sort_keys=True))
