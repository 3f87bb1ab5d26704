"""Sphinx configuration of the companion website (``make site``; see docs/index.md).

The pages are MyST Markdown; the executed notebooks (figures/<name>/<name>.ipynb, the committed
full-mode runs) are rendered by myst-nb with execution off; ``python -m bandits.report site`` first
writes the generated pages (docs/index.md, docs/papers/<slug>.md, docs/claims.md, from bandits/papers.py and the
runs' claims.json) and docs/_gen/ (copies of the notebooks, figures and data files).
"""
import os
import sys

sys.path.insert(0, os.path.abspath(".."))

# The generated pages (front page, one page per paper, the claims page) are not committed: written here when
# missing, so that sphinx-build alone works too (``make site`` writes them first, every time).
if not os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "index.md")):
    from bandits.site import write_site_sources

    write_site_sources()

project = "bandits"
author = "the bandits authors"
copyright = "2026"
extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon",
              "sphinx.ext.viewcode"]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
# docs/_gen/*.md are included by the pages (``{include}``), not pages of their own.
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints", "_gen/*.md", "_gen/extra"]
nb_execution_mode = "off"
nb_output_stderr = "remove"
nb_merge_streams = True
# No dollarmath: pages and notebooks show formulas as text, so no page loads MathJax from a CDN (the
# site works offline; the browser test checks that no request leaves localhost).
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type", "misc.highlighting_failure"]
autodoc_member_order = "bysource"
autodoc_default_options = {}
autodoc_mock_imports = ["torch"]
napoleon_google_docstring = True
html_theme = "sphinx_book_theme"
html_title = "bandits: five papers on distributed kernel bandits, reproduced"
html_theme_options = {"show_navbar_depth": 1, "home_page_in_toc": True,
                      "use_download_button": False, "use_fullscreen_button": False}
html_static_path = ["_static"]
# The runs' data (claims.json, results.csv, runs.csv, provenance.json, the PDFs), copied by
# ``python -m bandits.report site`` into _gen/extra/data/<notebook>/: downloadable from the pages at data/<notebook>/.
html_extra_path = [p for p in ["_gen/extra"] if os.path.isdir(os.path.join(os.path.dirname(__file__), p))]
# the theme's inline script sets the colour mode to localStorage's value or this default; left empty, a
# first visit (empty localStorage) logs "Got invalid theme mode" as a console error before resetting to auto
html_context = {"default_mode": "auto"}
html_favicon = "_static/favicon.svg"
html_css_files = ["custom.css"]
html_domain_indices = False  # no module index page: the API page lists the modules
html_last_updated_fmt = None

# Formulas in docstrings (``:math:``) are shown as their LaTeX source in a code span: MathJax would be
# loaded from a CDN, and the site is meant to work offline (the browser test allows no request that
# leaves localhost).
html_math_renderer = "latex_source"


def _math_inline(self, node):
    self.body.append(self.starttag(node, "code", "", CLASS="math"))
    self.body.append(self.encode(node.astext()) + "</code>")
    from docutils import nodes

    raise nodes.SkipNode


def _math_block(self, node):
    self.body.append(self.starttag(node, "pre", "", CLASS="math"))
    self.body.append(self.encode(node.astext()) + "</pre>")
    from docutils import nodes

    raise nodes.SkipNode


def _escape_bars(app, what, name, obj, options, lines):
    """Docstrings write |x| for absolute values and set sizes; reStructuredText reads |x| as a
    substitution (an error and a dangling link): escape the bars."""
    import re

    for i, line in enumerate(lines):
        if "|" in line and not line.lstrip().startswith(("+", "|", "=")):
            lines[i] = re.sub(r"(?<![\\`|])\|(?=[^\s|`])([^|`\n]*?[^\s|`\\])\|(?![|_])", r"\\|\1\\|", line)


def setup(app):
    app.add_html_math_renderer("latex_source", (_math_inline, None), (_math_block, None))
    app.connect("autodoc-process-docstring", _escape_bars)
