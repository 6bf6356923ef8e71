"""Every link between the guide's built pages leads somewhere.

mdBook turns `chapter.md#section` into `chapter.html#section` and checks
neither the file nor the section. This reads every page of the built book
(`docs/book`) and fails, naming each, on a relative link whose page is not
in the book or whose `#fragment` is no id on that page. Links with a scheme
(https:, mailto:) are left alone.
"""

import html.parser
import pathlib
import sys
import urllib.parse

book = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "docs/book").resolve()
# print.html repeats every chapter with links rewritten for one page; the
# chapters themselves are what is checked. 404.html and toc.html are mdBook's.
skip = {"print.html", "404.html", "toc.html"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])


pages = {}
for path in book.rglob("*.html"):
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    pages[path] = page

broken = []
checked = 0
for path, page in sorted(pages.items()):
    if path.name in skip:
        continue
    for href in page.links:
        parts = urllib.parse.urlsplit(href)
        if parts.scheme or parts.netloc:
            continue
        target = (path.parent / urllib.parse.unquote(parts.path)).resolve() if parts.path else path
        checked += 1
        where = f"{path.relative_to(book)}: {href}"
        if book not in target.parents and target != book:
            broken.append(f"{where} leaves the book")
        elif target.is_dir():
            if not (target / "index.html").exists():
                broken.append(f"{where}: no such page")
        elif target not in pages:
            if not target.exists():
                broken.append(f"{where}: no such page")
        elif parts.fragment and urllib.parse.unquote(parts.fragment) not in pages[target].ids:
            broken.append(f"{where}: no #{parts.fragment} on {target.relative_to(book)}")

if broken:
    print(f"the guide has {len(broken)} broken link(s):", file=sys.stderr)
    for line in broken:
        print(f"  {line}", file=sys.stderr)
    sys.exit(1)
print(f"the guide's {checked} links between its pages all lead somewhere")
