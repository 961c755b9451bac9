#!/usr/bin/env python3
"""check.py REPORT_DIR|PAGE WORK_DIR FIGURES — a page of ours, drawn by headless Chromium.

REPORT_DIR: its report.html must hold exactly FIGURES figures, one for each
SVG in REPORT_DIR/plots (none left out of the page, none missing from plots/).
PAGE (a .html file, such as `bpebench trace --html` writes): it must hold
exactly FIGURES figures.

Renders the whole page once (WORK_DIR/page.png, to look at) and every
figure of the page alone, a browser per core at a time: the page's own head (its style and its
Content-Security-Policy) with that one <figure> element, copied byte for byte
from report.html, at the SVG's own size, so the figure's box is known:
(0, 0, width, height). A figure counts as drawn when, inside its box, at
least 2% of the pixels are not white and some are in colour (the trainers'
lines; axes and text alone are grey). A blank figure of the same size is
rendered first and must fail the test: the check can fail.

Chromium runs with a fresh profile and every network feature off (the
machine has no network; without these flags it retries connections).
Exit status 1, naming the figures, when any is not drawn.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from PIL import Image

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1"]


def render(html_path, png_path, width, height):
    """Screenshot of file://html_path at width x height."""
    profile = tempfile.mkdtemp(prefix="bpebench-chromium-")
    try:
        cmd = ["chromium", *FLAGS, "--user-data-dir=" + profile, "--screenshot=" + png_path,
               "--window-size=%d,%d" % (width, height), "file://" + os.path.abspath(html_path)]
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        if done.returncode != 0 or not os.path.exists(png_path):
            sys.exit("html-check: chromium failed on %s:\n%s" % (html_path,
                                                                  done.stdout.decode(errors="replace")))
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def drawn(png_path, width, height):
    """(ink share, colour pixels) inside the box (0, 0, width, height)."""
    img = Image.open(png_path).convert("RGB")
    if img.size[0] < width or img.size[1] < height:
        sys.exit("html-check: %s is %dx%d, smaller than the figure's %dx%d"
                 % (png_path, img.size[0], img.size[1], width, height))
    ink = colour = 0
    for r, g, b in img.crop((0, 0, width, height)).getdata():
        if min(r, g, b) < 235:
            ink += 1
        if max(r, g, b) - min(r, g, b) > 80:
            colour += 1
    return ink / (width * height), colour


def main():
    if len(sys.argv) != 4 or not sys.argv[3].isdigit():
        sys.exit("usage: check.py REPORT_DIR|PAGE WORK_DIR FIGURES")
    report, work, expected = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(work, exist_ok=True)
    page_path = report if report.endswith(".html") else os.path.join(report, "report.html")
    page = open(page_path, encoding="utf-8").read()
    head = page[:page.index("<main>") + len("<main>")]
    alone = head.replace("</style>", "main { max-width: none; margin: 0; padding: 0; }\n"
                         "figure { margin: 0; }\n</style>")
    tail = "</main>\n</body>\n</html>\n"
    figures = re.findall(r'<figure id="(fig-\d+)".*?</figure>\n', page, re.S)
    bodies = re.findall(r'(<figure id="fig-\d+".*?</figure>\n)', page, re.S)
    if not figures:
        sys.exit("html-check: %s has no figure" % page_path)
    if page_path == report:
        svgs = ["(a page: no plots/)"] * len(figures)
    else:
        svgs = sorted(n for n in os.listdir(os.path.join(report, "plots")) if n.endswith(".svg"))
    if len(figures) != expected or len(svgs) != expected:
        sys.exit("html-check: %s has %d figures and plots/ %d SVGs (%s), expected %d"
                 % (page_path, len(figures), len(svgs), ", ".join(svgs), expected))

    def check(name, body):
        size = re.search(r'<svg width="(\d+)" height="(\d+)"', body)
        if not size:
            sys.exit("html-check: %s has no sized <svg>" % name)
        w, h = int(size.group(1)), int(size.group(2))
        path = os.path.join(work, name + ".html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(alone + body + tail)
        png = os.path.join(work, name + ".png")
        render(path, png, w, h)
        share, colour = drawn(png, w, h)
        return share >= 0.02 and colour >= 50, "%s: %dx%d, %.1f%% ink, %d colour pixels" % (
            name, w, h, 100 * share, colour)

    blank = re.sub(r"<svg .*</svg>", '<svg width="1040" height="470"><rect x="0" y="0" '
                   'width="1040" height="470" fill="#ffffff"/></svg>', bodies[0], flags=re.S)
    # One Chromium per core at a time: each render is a browser of its own.
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        whole = pool.submit(render, page_path, os.path.join(work, "page.png"), 1280, 16000)
        control = pool.submit(check, "blank", blank)
        checked = list(pool.map(check, figures, bodies))
        whole.result()
    ok, line = control.result()
    print("control " + line)
    if ok:
        sys.exit("html-check: a blank figure passed the check; the check is broken")
    failed = []
    for name, (ok, line) in zip(figures, checked):
        print(("drawn   " if ok else "BLANK   ") + line)
        if not ok:
            failed.append(name)
    if failed:
        sys.exit("html-check: not drawn: " + ", ".join(failed))
    print("html-check: all %d figures of %s drawn; whole page in %s"
          % (len(figures), page_path, os.path.join(work, "page.png")))


main()
