#!/usr/bin/python3
"""Every reference in README.md and docs/ resolves inside the repository.

Checked, outside code blocks and inline code:
1. Relative Markdown links `[text](path)`, `[text](path#anchor)`, `[text](#anchor)` and
   reference definitions `[id]: path`: the path exists inside the repository, and an
   anchor names a heading of the target page (GitHub's heading ids).
2. Section citations `§N` / `§N.M`: the cited page (the file named just before the `§`,
   as `api.md §4`, `` `docs/api.md` §9 ``, `[placement.md](placement.md) §2`, or the
   link around it; the page itself when none is named) is in the repository and has a
   heading numbered N (`## 4. ...`, `### 4.1 ...`).
3. No reference leaves the repository: no link or quoted path starts with `../` above
   the repository root or names the `shared/` folder beside it.
Run: /usr/bin/python3 tests/docs/test_links.py [ROOT]
"""
import os
import re
import sys
import unicodedata

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("DGD_SOURCE_DIR") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", ".."))

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
SECTION = re.compile(r"§\s?(\d+(?:\.\d+)*)")
SECTION_NUMBER = re.compile(r"^(\d+(?:\.\d+)*)\.?(?:\s|$)")
# What may stand between two citations that share a page: "§3–§7", "§2/§5", "§1, §2".
CHAINED = re.compile(r"^[\s,/–—\-]*(?:and|or|to)?[\s,/–—\-]*$")
# The page named just before a citation: a Markdown link, a (quoted) file name, or a bare
# upper-case document name such as DESIGN.
NAMED_BEFORE = re.compile(r"(?:\]\(([^)\s]+)\)|`?([\w./-]+\.md)`?|\b([A-Z][A-Z0-9_-]{2,}))\s*$")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...


def pages():
    out = [os.path.join(ROOT, "README.md")]
    for base, dirs, files in os.walk(os.path.join(ROOT, "docs")):
        dirs.sort()
        out += [os.path.join(base, f) for f in sorted(files) if f.endswith(".md")]
    return [p for p in out if os.path.isfile(p)]


def slug(text):
    """GitHub's heading id: inline markup dropped, lower case, punctuation removed, spaces to '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
    text = text.replace("`", "").lower()
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in "-_" or cat[0] in "LN" or cat == "Mn":
            out.append(ch)
        elif ch == " ":
            out.append("-")
    return "".join(out)


_cache = {}


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, fenced = [], False
    for n, line in enumerate(lines, 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append((n, line))
    return out


def headings(path):
    """(anchors, section numbers) of a Markdown page."""
    if path not in _cache:
        anchors, numbers, seen = set(), set(), {}
        for _, line in prose_lines(path):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            anchors.add(base if count == 0 else "%s-%d" % (base, count))
            num = SECTION_NUMBER.match(m.group(2).replace("`", ""))
            if num:
                numbers.add(num.group(1))
        _cache[path] = (anchors, numbers)
    return _cache[path]


def inside_repo(path):
    real = os.path.realpath(path)
    return real == ROOT or real.startswith(ROOT + os.sep)


def resolve(page, target):
    """The file a relative reference on `page` names: relative to the page, else to the root."""
    for base in (os.path.dirname(page), ROOT):
        cand = os.path.normpath(os.path.join(base, target))
        if os.path.exists(cand):
            return cand
    return None


def leaves_repo(page, target):
    t = target.split("#")[0]
    if t.startswith("shared/") or (t.startswith("../") and "/shared/" in t):
        return True
    return t.startswith("../") and not inside_repo(os.path.join(os.path.dirname(page), t))


def check_link(page, target, where, problems):
    if not target or EXTERNAL.match(target):
        return
    path, _, anchor = target.partition("#")
    if leaves_repo(page, target):
        problems.append("%s: link %s leaves the repository" % (where, target))
        return
    if path:
        file = os.path.normpath(os.path.join(os.path.dirname(page), path))
        if not os.path.exists(file) or not inside_repo(file):
            problems.append("%s: link %s: %s does not exist in the repository" % (where, target, path))
            return
    else:
        file = page
    if anchor and file.endswith(".md"):
        if anchor not in headings(file)[0]:
            problems.append("%s: link %s: %s has no heading #%s" % (where, target, os.path.relpath(file, ROOT), anchor))


def check_sections(page, text, links, where, problems):
    previous = None  # (end of the last citation, the page it cited)
    for m in SECTION.finditer(text):
        cited, name = page, None
        inside = [(start, end, target) for start, end, target in links if start <= m.start() < end]
        before = text[:m.start()]
        named = NAMED_BEFORE.search(before)
        if inside:
            name = inside[0][2].split("#")[0] or None
        elif previous and CHAINED.match(text[previous[0]:m.start()]):
            cited, name = previous[1], None
        elif named:
            name = named.group(1) or named.group(2) or named.group(3) + ".md"
            name = name.split("#")[0]
        if name:
            cited = resolve(page, name)
            if cited is None or not inside_repo(cited):
                problems.append("%s: §%s cites %s, which is not in the repository" % (where, m.group(1), name))
                previous = None
                continue
        previous = (m.end(), cited)
        if not cited.endswith(".md"):
            problems.append("%s: §%s cites %s, which is not a Markdown page" % (where, m.group(1), name))
        elif m.group(1) not in headings(cited)[1]:
            problems.append("%s: §%s: %s has no section %s" % (where, m.group(1), os.path.relpath(cited, ROOT),
                                                               m.group(1)))


def check_page(page, problems):
    rel = os.path.relpath(page, ROOT)
    for n, line in prose_lines(page):
        where = "%s:%d" % (rel, n)
        # Quoted paths: only whether they leave the repository (a quoted path may be an example).
        for code in INLINE_CODE.finditer(line):
            for word in code.group(2).split():
                if (word.startswith("../") or word.startswith("shared/")) and leaves_repo(page, word.rstrip(".,;:)")):
                    problems.append("%s: %s names a path outside the repository" % (where, word))
        prose = INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
        links = []
        for m in LINK.finditer(prose):
            links.append((m.start(), m.end(), m.group(2)))
            check_link(page, m.group(2), where, problems)
        for m in IMAGE.finditer(prose):
            check_link(page, m.group(1), where, problems)
        ref = REF_DEF.match(prose)
        if ref:
            check_link(page, ref.group(1), where, problems)
        # Citations see the quoted file names (`docs/api.md` §9) but not code.
        check_sections(page, line, links, where, problems)


def main():
    problems = []
    checked = pages()
    for page in checked:
        check_page(page, problems)
    for p in problems:
        print("FAIL", p)
    print("%d pages checked, %d dangling references" % (len(checked), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
