"""The two recipe pages users arrive with, and the shell commands on them, as written.

The pages are read from shared/seeds beside the repository (`DGD_SEED_PAGES` overrides the
folder); tests/e2e/seeds/pages/ holds a byte-identical copy for checkouts without it, and
`page_text` refuses a copy that differs from the shared page.

Commands are taken from the page text the way a reader copies them:
- the V4-Flash page prints a prompt: a command starts at a line `$...`, continues on lines
  `>...` (the shell's continuation prompt), and `$` alone is an empty line;
- the V4.1-Flash page prints bare commands: a line whose first word is a shell command
  (`export`, `set`, `kustomize`, `kubectl`, `curl`) starts one, and a trailing backslash
  continues it on the next line.
Consecutive command lines form one block, as the page shows them in one box.
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(os.path.join(HERE, "..", "..", ".."))
COPIES = os.path.join(HERE, "pages")
# Page name -> how its first line reads.
TITLES = {"deepseek-v4-flash": "DeepSeek-V4-Flash", "deepseek-v4.1-flash": "DeepSeek-V4.1-Flash | "}
BARE_COMMANDS = ("export", "set", "kustomize", "kubectl", "curl")


def shared_folder():
    d = os.environ.get("DGD_SEED_PAGES") or os.path.join(ROOT, "..", "shared", "seeds")
    return d if os.path.isdir(d) else None


def _title_matches(name, first_line):
    want = TITLES[name]
    return first_line.startswith(want) if want.endswith(" ") else first_line == want


def page_source(name):
    """(path, text) of the page: the shared one when present, else the repository's copy."""
    folder = shared_folder()
    if folder:
        for fn in sorted(os.listdir(folder)):
            path = os.path.join(folder, fn)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if _title_matches(name, text.split("\n", 1)[0]):
                return path, text
        raise AssertionError("no page titled %r in %s" % (TITLES[name], folder))
    path = os.path.join(COPIES, name + ".txt")
    with open(path, encoding="utf-8") as f:
        return path, f.read()


def page_text(name):
    path, text = page_source(name)
    copy = os.path.join(COPIES, name + ".txt")
    with open(copy, encoding="utf-8") as f:
        if f.read() != text:
            raise AssertionError("%s differs from the page %s: copy the page again" % (copy, path))
    return text


def _is_bare_command(line):
    word = line.split(" ", 1)[0]
    return word in BARE_COMMANDS and not line.endswith(".")


def commands(name):
    """[(block number, command text)] in page order; a command's lines joined by newlines."""
    text = page_text(name)
    out = []
    block = 0
    in_block = False
    current = None
    prompt = name == "deepseek-v4-flash"
    for raw in text.split("\n"):
        line = raw.rstrip("\r")
        if prompt and line.startswith("$"):
            if current is not None:
                out.append((block, current))
            if not in_block:
                block += 1
            in_block = True
            current = line[1:]
        elif prompt and line.startswith(">") and current is not None:
            current += "\n" + line[1:]
        elif not prompt and current is not None and current.endswith("\\"):
            current += "\n" + line
        elif not prompt and _is_bare_command(line):
            if current is not None:
                out.append((block, current))
            if not in_block:
                block += 1
            in_block = True
            current = line
        else:
            if current is not None:
                out.append((block, current))
            current = None
            in_block = False
    if current is not None:
        out.append((block, current))
    # `$` alone is the page's empty line between two commands of a box.
    return [(b, c) for b, c in out if c.strip()]


def mentions(command, words):
    return any(re.search(r"(?<![\w.-])" + re.escape(w) + r"(?![\w.-])", command) for w in words)
