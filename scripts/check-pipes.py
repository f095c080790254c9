#!/usr/bin/env python3
"""Find pipelines whose reader can exit before its writer is done.

usage: check-pipes.py FILE...

A reader that stops early (head, grep -q, awk with exit, sed with q, a lone read) kills the
writer with SIGPIPE.  Under "set -o pipefail" the pipeline then fails, or not, depending on
how much the writer had left to write: a failure that comes and goes with timing and cache
state.  Every stage after the first must read all of its input; scripts/lib.sh has
first_line, first_lines and matches for the common cases.  Prints FILE:LINE: reason for each finding
and exits 1 if there is one.
"""
import re
import sys

TERMINATORS = ("|", ";", "&", "\n", ")")


def stages(text):
    """Yield (line, segment) for every pipeline stage that follows an unquoted '|'."""
    i, n, quote = 0, len(text), None
    while i < n:
        c = text[i]
        if quote:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"':
                i += 1
        elif c == "\\":
            i += 1
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or text[i - 1] in " \t\n;"):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif c == "|":
            if text[i + 1:i + 2] == "|" or text[i - 1:i] == "|":
                i += 2 if text[i + 1:i + 2] == "|" else 1
                continue
            yield text.count("\n", 0, i) + 1, segment(text, i + 1)
        i += 1


def segment(text, i):
    """The command that starts at i, up to the next unquoted terminator."""
    start, n, quote, depth = i, len(text), None, 0
    while i < n:
        c = text[i]
        if quote:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"':
                i += 1
        elif c == "\\":
            i += 1
        elif c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")" and depth:
            depth -= 1
        elif c in TERMINATORS and not depth:
            if not (c == "\n" and text[start:i].strip() == ""):
                break
        i += 1
    return text[start:i].strip()


def strip_end_blocks(prog):
    """An awk program without its END blocks (an exit there is harmless)."""
    out, i = [], 0
    for m in re.finditer(r"\bEND\s*\{", prog):
        if m.start() < i:
            continue
        out.append(prog[i:m.start()])
        j, depth = m.end(), 1
        while j < len(prog) and depth:
            depth += {"{": 1, "}": -1}.get(prog[j], 0)
            j += 1
        i = j
    out.append(prog[i:])
    return "".join(out)


def problem(seg):
    words = seg.split()
    if not words:
        return None
    cmd = words[0]
    if cmd == "head":
        return "head stops reading (use first_line or first_lines)"
    if cmd == "read":
        return "a single read takes one line (read into a variable first)"
    if cmd == "grep":
        for w in words[1:]:
            if re.fullmatch(r"-[a-zA-Z]*[qlLm][a-zA-Z0-9]*|--(quiet|silent|max-count.*|files-with.*)", w):
                return "grep %s stops at the first match (use matches, or grep -c)" % w
        if re.search(r"(^|\s)&?>\s*/dev/null", seg) and not re.search(r"\s-[a-zA-Z]*c", seg):
            return "grep with output to /dev/null stops at the first match (use matches)"
    if cmd == "awk" and re.search(r"\bexit\b", strip_end_blocks(seg)):
        return "awk exits before the end of its input (set a flag, print in END)"
    if cmd == "sed" and re.search(r"(^|[;{}\s'0-9/$])[qQ][0-9]*\s*([;}'\"]|$)", seg):
        return "sed quits before the end of its input (read the file directly, or no q)"
    return None


def main(paths):
    bad = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for line, seg in stages(text):
            why = problem(seg)
            if why:
                print("%s:%d: %s: | %s" % (path, line, why, seg.splitlines()[0][:60]))
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
