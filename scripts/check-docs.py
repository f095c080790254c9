#!/usr/bin/env python3
"""The documents against the series and their tests.  KTAP version 1, one result per fact.

Numbers: the authorities are the tests (qtests, KUnit) and the patched kernel and QEMU
headers, compiled with the members the virtio spec patch adds to its listing.  Every
document that states a number agrees; design.md, user-guide.md and README.md state none.
Names, both ways: sysfs attributes, QEMU properties and QMP commands, growth-mkfs options,
suites and scenarios.  Identifiers and relative links in the documents exist.
GH_KERNEL_PATCHES / GH_QEMU_PATCHES / GH_UTIL_LINUX_PATCHES: other patch directories.
A fact that needs a base tree that is missing is "# SKIP" with the reason, unless the sources
that are there already disagree.
"""
import glob, os, re, shutil, subprocess, tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("GH_CACHE") or os.path.expanduser("~/.cache/growth-hints")
T10, GUIDE = "Documentation/scsi/capacity-growth-vpd.md", "Documentation/user-guide.md"
NVME = "Documentation/nvme/namespace-size-range.md"
results = []


class Skip(str):
    """Why a source of truth cannot be read here (its base tree is missing)."""


def result(ok, name, diag=(), skip=None):
    results.append((ok, name, list(diag) + (["not checked: " + skip] if skip and not ok else []),
                    skip if ok else None))


def read(path):  # (built binaries in tools/ are read too: no decoding errors)
    with open(os.path.join(TOP, path), encoding="utf-8", errors="replace") as f:
        return f.read()


def find(pattern, text):
    return re.findall(pattern, text, re.M)


def series(what):
    d = os.environ.get("GH_%s_PATCHES" % what.upper().replace("-", "_"))
    if d:
        return sorted(p for p in glob.glob(d + "/0*.patch") if "/0000-" not in p)
    return [os.path.join(TOP, what, "patches", n) for n in read(what + "/series").split()]


def added(patches):  # {path: the lines the series adds to it}
    out, path = {}, None
    for line in "".join(read(p) for p in patches).splitlines(True):
        if line.startswith(("diff --git", "+++ ")):
            path = line[6:].strip() if line.startswith("+++ ") else None
        elif path and line.startswith("+"):
            out[path] = out.get(path, "") + line[1:]
    return out


SERIES = {w: series(w) for w in ("kernel", "qemu", "util-linux")}
ADDED = {w: added(p) for w, p in SERIES.items()}
kall, qall = "".join(ADDED["kernel"].values()), "".join(ADDED["qemu"].values())
docs = {}  # the project's documents and those the series carry (QEMU rst and QAPI, ABI text)
for pat in ("README.md", "Documentation/**/*.md", "Documentation/**/*.txt", "Documentation/**/*.patch",
            "*/cover-letter.txt", "tools/*.md", "tools/bench/*.md", "tools/man/*.[0-9]"):
    for p in sorted(glob.glob(os.path.join(TOP, pat), recursive=True)):
        docs[os.path.relpath(p, TOP)] = read(p).replace("\\-", "-")
docs.update(("qemu series: " + p, t) for p, t in ADDED["qemu"].items() if re.match(r"docs/|qapi/", p))
docs.update(("kernel series: " + p, t) for p, t in ADDED["kernel"].items() if p.startswith("Documentation/"))
t10, guide = docs.get(T10, ""), docs.get(GUIDE, "")


def compile_listing(what, header, paths, members, after):
    """offsetof/sizeof in the header the series patches and in the spec listing's new members
    placed after `after` of that header: {name: (header, spec)}, or an error string."""
    base = dict(l.split("=", 1) for l in read(what + "/BASE").splitlines() if "=" in l)
    repos = [os.path.join(TOP, "build", what)] + glob.glob("%s/git/%s_%s*" % (
        CACHE, base["package"], base["version"].split(":")[-1]))
    files = next((f for f in ([subprocess.run(["git", "-C", r, "show", "gh-base:" + p], capture_output=True,
                                              text=True) for p in paths] for r in repos)
                  if all(x.returncode == 0 for x in f)), None)
    if not files:
        return Skip("no base of %s (build/%s or %s/git): run 'make %s-tree'" % (what, what, CACHE, what))
    if not shutil.which("cc"):
        return "no C compiler (cc): install gcc"
    d = tempfile.mkdtemp(prefix="gh-docs-")
    try:
        for p, f in zip(paths, files):
            os.makedirs(os.path.dirname(os.path.join(d, p)), exist_ok=True)
            with open(os.path.join(d, p), "w", encoding="utf-8") as out:
                out.write(f.stdout)
        for p in SERIES[what]:
            r = subprocess.run(["git", "apply"] + ["--include=" + x for x in paths] + [p], cwd=d,
                               capture_output=True, text=True)
            if r.returncode:
                return "%s does not apply: %s" % (os.path.basename(p), r.stderr.strip())
        ctype = {"le64": "uint64_t", "le32": "uint32_t", "le16": "uint16_t", "u8": "uint8_t"}
        src = ("#include <stdint.h>\n#include <stddef.h>\n#include <stdio.h>\n#define QEMU_PACKED __attribute__((packed))\n"
               "#include <%s>\n#define C struct virtio_blk_config\nstruct spec {\n\tchar before[offsetof(C, %s) + "
               "sizeof(((C *)0)->%s)];\n%s} QEMU_PACKED;\nint main(void)\n{\n" % (
                   header, after, after, "".join("\t%s %s;\n" % (ctype[t], n) for t, n in members)))
        src += '\tprintf("bit %d %d\\nsize %zu %zu\\n", VIRTIO_BLK_F_GROWTH, VIRTIO_BLK_F_GROWTH, sizeof(C), sizeof(struct spec));\n'
        src += "".join('\tprintf("%s %%zu %%zu\\n", offsetof(C, %s), offsetof(struct spec, %s));\n' % (n, n, n)
                       for _, n in members) + "\treturn 0;\n}\n"
        with open(d + "/t.c", "w") as f:
            f.write(src)
        cc = subprocess.run(["cc", "-I", d + "/include/uapi", "-I", d + "/include", "-o", d + "/t", d + "/t.c"],
                            capture_output=True, text=True)
        if cc.returncode:
            return "does not compile: " + " ".join(cc.stderr.split())[:300]
        out = subprocess.run([d + "/t"], capture_output=True, text=True, check=True).stdout
        return {k: tuple(map(int, v.split())) for k, v in (l.split(" ", 1) for l in out.splitlines())}
    finally:
        shutil.rmtree(d)


# --- Numbers ------------------------------------------------------------------------------
NUMBERS = {  # fact: (regex in any document, value of a match)
    "feature bit": (r"VIRTIO_BLK_F_GROWTH\W{0,4}[(=]\s*(\d+)", int),
    "field offsets": (r"offsets?\s+(\d+),\s+(\d+),?\s+and\s+(\d+)", lambda m: tuple(map(int, m))),
    "configuration size": (r"configuration space[^.]{0,30}?\b(\d+) bytes", int),
    # (a range of codes, "B0h-B7h", names codes around it, not the page's)
    "page code": (r"\b0x([bB][0-9a-fA-F])\b|(?<![-\u2013])\b(B[0-9A-F])h\b(?!\s*[-\u2013]\s*B[0-9A-F]h)",
                  lambda m: "".join(m).lower()),
    "PAGE LENGTH": (r"PAGE LENGTH\W{0,3}([0-9A-F]{4})h", lambda m: int(m, 16)),
}
FIELDS = ("min_capacity", "max_capacity", "capacity_increment")


def stated(fact, skip=()):
    regex, value = NUMBERS[fact]
    return [(d, value(m)) for d, t in docs.items() if d not in skip for m in find(regex, t)]


def agree(fact, truth, claims, skip=None):
    """truth: {source: value}, all equal; claims: (document, value[, part of truth it states]);
    skip: why sources are missing from truth (then SKIP, unless the others disagree)."""
    if skip and not truth:
        return result(True, fact, skip=skip)
    if len(set(truth.values())) != 1 or None in truth.values():
        return result(False, fact, ["%s: %s" % kv for kv in truth.items()], skip)
    v = next(iter(truth.values()))
    wrong = [(c[0], c[1], c[2](v) if len(c) > 2 else v) for c in claims]
    wrong = [w for w in wrong if w[1] != w[2]]
    result(not wrong, "%s: %s everywhere" % (fact, v), ["%s states %s, not %s" % w for w in wrong], skip)


# virtio: the spec patch's listing hunk (context and added lines) and the members it adds.
hunk = next((h for d in docs if d.startswith("Documentation/virtio/") and d.endswith(".patch")
             for h in docs[d].split("\n@@") if re.search(r"^\+\s*le64 min_capacity;", h, re.M)), "")
post = find(r"^[ +].*", hunk)
new = [i for i, l in enumerate(post) if re.match(r"\+\s*(le64|le32|le16|u8) \w+;$", l)]
after = find(r"(\w+)(?:\[\d+\])?;", "\n".join(post[:new[0]]))[-1:] if new else []
if after and new == list(range(new[0], new[-1] + 1)) and post[new[-1] + 1].strip() == "};":
    members = [find(r"(\w+) (\w+);", post[i])[0] for i in new]
    compiled = {w: compile_listing(w, h, p, members, after[0]) for w, h, p in (
        ("kernel", "linux/virtio_blk.h", ["include/uapi/linux/virtio_blk.h"]),
        ("qemu", "standard-headers/linux/virtio_blk.h", ["include/standard-headers/linux/%s.h" % h for h in (
            "virtio_blk", "types", "virtio_ids", "virtio_config", "virtio_types")]))}
else:
    compiled = {"spec patch": "no struct virtio_blk_config listing whose new members end the struct"}
good = {w: c for w, c in compiled.items() if isinstance(c, dict)}
missing = {w: c for w, c in compiled.items() if isinstance(c, Skip)}  # no base tree: SKIP
skip = "; ".join("%s: %s" % kv for kv in missing.items()) or None
result(len(good) + len(missing) == 2 and all(v[0] == v[1] for c in good.values() for v in c.values()),
       "virtio spec listing compiled next to the kernel and QEMU headers: offsetof, sizeof agree",
       ["%s: %s" % (w, c) for w, c in compiled.items()], skip)
agree("virtio feature bit", {w: c["bit"][0] if w in good else None for w, c in compiled.items()
                             if w not in missing}, stated("feature bit"), skip)
qtest = dict((f, int(o)) for o, f in find(r"config_readq\(\w+,\s*(\d+)\),\s*==,\s*(min|max|increment)\b", qall))
agree("virtio field offsets", dict(
    [("qtests", tuple(qtest.get(k) for k in ("min", "max", "increment")))] +
    [(w, tuple(c[f][0] for f in FIELDS) if w in good and all(f in c for f in FIELDS) else None)
     for w, c in compiled.items() if w not in missing]),
    stated("field offsets") + [(d, int(o), lambda v, i=FIELDS.index(f): v[i]) for d, t in docs.items()
                               for f, o in find(r"\b(%s)\W{0,3}\((?:offset )?(\d+)\)" % "|".join(FIELDS), t)],
    skip)
agree("virtio configuration size", {w: c["size"][0] if w in good else None for w, c in compiled.items()
                                    if w not in missing}, stated("configuration size"), skip)

# SCSI: the kernel's definitions and KUnit against the qtests; the T10 table against both.
UNIT = {"min": 0, "max": 1, "increment": 2, "granularity": 2}
kcode = find(r"#define\s+\w*CAPACITY_GROWTH\s+0x([0-9a-fA-F]{2})\b", kall)
qcode = {c.lower() for c in find(r"buf\[1\],\s*==,\s*0x(\w\w)\);(?:\n.*){1,3}ldq_be_p", qall)}
agree("VPD page code", {"kernel (KUnit)": kcode[0].lower() if kcode else None,
                        "qtests": "/".join(sorted(qcode)) or None},
      stated("page code", skip=[T10]) + [(d, c) for d, t in docs.items() for c in find(r"\bvpd_pg([0-9a-f]{2})\b", t)]
      # The T10 text leaves the code to the editor (Bxh) and names the prototype's choice.
      + [(T10, c.lower(), lambda v, c=c.lower(): c if c == "bx" else v) for r in (
          r"PAGE CODE \((B[0-9A-Fx])h\)", r"Capacity Growth VPD page\s*\|\s*(B[0-9A-Fx])h",
          r"prototype implementations[^.]*?\buse (B[0-9A-F])h\b") for c in find(r, t10) or ["missing"]])
kunit = {UNIT[f]: int(o) for f, o in find(r"put_unaligned_be64\(c->(min|max|increment|granularity),\s*&buf\[(\d+)\]\)", kall)}
qscsi = {UNIT[f]: int(o) for o, f in find(r"ldq_be_p\(&buf\[(\d+)\]\),\s*==,\s*(min|max|increment)\b", qall)}
ROWS = {"MINIMUM CAPACITY": 0, "MAXIMUM CAPACITY": 1, "CAPACITY GRANULARITY": 2}
table = {ROWS[n]: (int(a), int(b)) for a, n, b in find(
    r"^\|\s*(\d+)\s*\| \(MSB\).*\n.*?(%s).*\n\|\s*(\d+)\s*\|.*\(LSB\)" % "|".join(ROWS), t10)}
agree("VPD page fields (first, last byte)",
      {s: tuple((o[i], o[i] + 7) for i in range(3)) if len(o) == 3 else None for s, o in (("KUnit", kunit), ("qtests", qscsi))},
      [(T10, tuple(table.get(i) for i in range(3)))])
klen = find(r"#define\s+\w*CAPACITY_GROWTH_LEN\s+(\d+)", kall) + find(r"\[1\] = \w*CAPACITY_GROWTH, \[3\] = (\d+)", kall)
agree("VPD PAGE LENGTH", {"kernel": int(klen[0]) if klen else None, "KUnit": int(klen[-1]) if klen else None},
      stated("PAGE LENGTH") + [(T10, int((find(r"PAGE LENGTH \((\w{4})h\)", t10) or ["-1"])[0], 16))])
# NVMe: the first byte of NSZRA, MINNSZE, MAXNSZE and NSZEINC in the NVM Command Set Identify
# Namespace data; KUnit (bytes written out by hand), the qtest and QEMU's header against the
# proposal (section 3.8 and the table of 4.1) and the QEMU rst.
NV = {"NSZRA": 0, "MINNSZE": 1, "MAXNSZE": 2, "NSZEINC": 3, "nszra": 0, "min": 1, "max": 2, "increment": 3,
      "minnsze": 1, "maxnsze": 2, "nszeinc": 3}


def nv(pairs):  # [(field, byte)] -> (byte of each field) or None
    d = {NV[f]: int(b) for f, b in pairs}
    return tuple(d[i] for i in range(4)) if sorted(d) == list(range(4)) else None


nvme_doc = docs.get(NVME, "")
qrst = "".join(t for d, t in docs.items() if d.startswith("qemu series: docs/"))
rst = find(r"of byte (\d+) says.*\n?.*\n?.*?at bytes (\d+),\s+(\d+)\s+and\s+(\d+)", qrst)
agree("NVMe Namespace Size Range offsets", {
    "kernel (KUnit)": nv((f, b) for b, f in find(
        r"\[(\d+)(?: \+ \d+)?\] = 0x[0-9a-f]+,\s*/\* (NSZRA|MINNSZE|MAXNSZE|NSZEINC)\b", kall)),
    "qtests": nv([("nszra", b) for b in find(r"data\[(\d+)\], ==, nszra\)", qall)] +
                 [(f, b) for b, f in find(r"le64_at\(data, (\d+)\), ==, (min|max|increment)\b", qall)]),
    "QEMU header": nv(find(r"offsetof\(NvmeIdNsNvm, (nszra|minnsze|maxnsze|nszeinc)\) != (\d+)", qall))},
    [(NVME + " (3.8)", nv(find(r"^- (NSZRA|MINNSZE|MAXNSZE|NSZEINC): bytes? (?:\d+:)?(\d+)", nvme_doc))),
     (NVME + " (4.1)", nv((f, b) for b, f in find(
         r"^\| (?:\d+:)?(\d+) \| O \| \*\*[^(]*\((NSZRA|MINNSZE|MAXNSZE|NSZEINC)\)", nvme_doc)))] +
    [("the QEMU series' rst", tuple(map(int, m))) for m in rst] +
    ([("the QEMU series' rst", nv((f, b) for b, f in find(
        r"^(\d+) +(NSZRA|MINNSZE|MAXNSZE|NSZEINC) ", qrst)))] if not rst else []))
# design.md's table of the numbers to be assigned (section 6.1, which every cover letter points
# to) is the one place outside those that states them; the checks above hold it to the truth.
DESIGN_TABLE = r"(?ms)^### 6\.1 Numbers to be assigned\n.*?(?=^#)"
outside = dict(docs, **{"Documentation/design.md": re.sub(DESIGN_TABLE, "", docs.get("Documentation/design.md", ""))})
diag = ["%s states the %s (%s): link to the proposals instead" % (d, f, v) for f in NUMBERS
        for d, t in outside.items() if d in ("Documentation/design.md", GUIDE, "README.md")
        for v in map(NUMBERS[f][1], find(NUMBERS[f][0], t))]
diag += ["Documentation/design.md has no section 6.1 \"Numbers to be assigned\""] * (
    not re.search(DESIGN_TABLE, docs.get("Documentation/design.md", "")))
result(not diag, "numbers are stated only in the proposals, cover letters, the series' texts and "
       "design.md's table of the numbers to be assigned", diag)


# --- Names, both ways -----------------------------------------------------------------------
def both_ways(what, exist, named, homes):
    """what: (one, many); named: {(document, name)}; homes: {title: text} naming every one."""
    what, many = what
    diag = ["%s names %s '%s', which does not exist" % (d, what, n) for d, n in sorted(named) if n not in exist]
    diag += ["%s '%s' is not documented in %s" % (what, n, h) for n in sorted(exist) for h, t in homes.items()
             if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(n), t)]
    result(exist and not diag, "%s: %d exist, each is documented, each one named exists" % (many, len(exist)), diag)


history = [d for d in docs if d.endswith("cover-letter.txt")]  # mails: they may name what v1 had
named = lambda regex, skip=history: {(d, "".join(n)) for d, t in docs.items() if d not in skip for n in find(regex, t)}
attrs = set(find(r'QUEUE_RO_ENTRY\(\w+,\s*"(\w+)"\)', kall)) | {"vpd_" + p for p in find(r"sdev_vpd_pg_attr\((pg\w+)\)", kall)}
abi = "".join(t for d, t in docs.items() if d.startswith("kernel series: Documentation/ABI/"))
both_ways(("sysfs attribute", "sysfs attributes"), attrs, named(r"\b(?!blkid_)([a-z_]*growth[a-z_]*_bytes|vpd_pg[0-9a-f]{2})\b|queue/([a-z_]*growth\w*)", []),
          {GUIDE: guide, "the kernel series' ABI text (queue/)": abi + " ".join(a for a in attrs if "vpd" in a)})
props = set(find(r'DEFINE_PROP_\w+\("([a-z-]*growth[a-z-]*)"', qall))
qmp = set(find(r"'command':\s*'([a-z-]*growth[a-z-]*)'", qall))
suites = set(find(r'^\s*"([a-z0-9-]+)\|', read("scripts/check.sh")))
scenarios = {os.path.basename(p)[:-3] for p in glob.glob(TOP + "/selftests/scenarios/*.sh")}
# PLANNED: tools the documents name as planned and not yet written (none now: growth-inflate,
# which design.md 2.6 named as planned, is in tools/).
PLANNED = set()
others = suites | scenarios | PLANNED | {os.path.basename(p)[:-2] for p in glob.glob(TOP + "/tools/*.c")} | {
    os.path.basename(p)[:-2] for p in ADDED["qemu"] if p.startswith("tests/qtest/")}
both_ways(("QEMU property or QMP command", "QEMU properties and QMP commands"), props | qmp,
          {(d, n) for d, n in named(r"(?<![\w./-])([a-z0-9]+(?:-[a-z0-9]+)+)(?![\w/-]|\.[a-z])")
           if "growth" in n and n not in others and not any(n.startswith(o + "-") for o in others)}, {GUIDE: guide, "the QEMU series' rst": "".join(
               t for d, t in docs.items() if d.startswith("qemu series: docs/"))})
options = set(find(r'"(--[a-z][a-z-]+)"', read("tools/growth-mkfs.c"))) - {"--help", "--version"}
manual = "tools/man/growth-mkfs.8" if "tools/man/growth-mkfs.8" in docs else "tools/README.md"
both_ways(("growth-mkfs option", "growth-mkfs options"), options, {(d, o) for d, c in named(r"growth-mkfs((?: +[^\s`|]+)+)")
                                          for o in find(r"(?<![\w-])(--[a-z][a-z-]+)", c.split(" -- ")[0])},
          {manual: docs.get(manual, "")})


def table(head):  # the first column of the user guide's table whose header starts with head
    m = re.search(r"^\| %s \|.*\n((?:\|.*\n)+)" % head, guide, re.M)
    return set(find(r"^\| `([a-z0-9-]+)` \|", m.group(1))) if m else set()


def commands(regex):  # the names that end the command lines regex matches
    return {(d, n) for d, c in named(regex, []) for n in re.search(r"((?:\s[a-z][a-z0-9-]*)*)$", c).group(1).split()}


for what, exist, head, regex in ((("suite", "make check suites"), suites, "Suite", r"check\.sh((?: [-\w./]+)+)"),
                                 (("scenario", "scenarios"), scenarios, "Scenario", r"selftests/run\.sh((?: [-\w./]+)+)")):
    both_ways(what, exist, commands(regex) | {(GUIDE, n) for n in table(head)},
              {GUIDE + " (table)": " ".join(table(head))})

# Identifiers with "growth" in them (functions, KUnit suites, module parameters, udev and
# environment names, Kconfig options) exist in a series, the tools or the tests.
# Every series counts, also those whose texts the checks above do not read (e2fsprogs,
# xfsprogs, libvirt, the peer suites).
corpus = "".join(read(p) for w in SERIES for p in SERIES[w]) + "".join(
    read(p) for p in glob.glob(TOP + "/*/patches/*.patch")) + "".join(
    read(p) for p in glob.glob(TOP + "/tools/**/*", recursive=True) + glob.glob(TOP + "/selftests/**/*", recursive=True)
    + glob.glob(TOP + "/scripts/*") if os.path.isfile(p) and os.path.relpath(p, TOP) not in docs
    and not p.endswith("check-docs.py"))
diag = ["%s names %s, which is in no series, tool or test" % (d, n)
        for d, n in sorted(named(r"\b([A-Za-z0-9]+(?:_[A-Za-z0-9]+)+)\b"))
        if "growth" in n.lower() and re.sub(r"^CONFIG_", "", n) not in corpus]
result(not diag, "identifiers named in the documents exist", diag)
diag = ["%s links to %s, which does not exist" % (d, l) for d in docs if d.endswith(".md")
        for l in find(r"\]\(([^)#\s:]+)(?:#[^)]*)?\)", docs[d]) if not os.path.exists(os.path.join(TOP, os.path.dirname(d), l))]
result(not diag, "relative links resolve", diag)

# Benchmark numbers: a paragraph (or list item) of a document that cites a committed results
# folder (tools/bench/results/<run>/), the tables (markdown, or indented text in a cover
# letter) right after it and the paragraph after those
# tables state only numbers of that run: every decimal number in them (ratios, seconds,
# intervals) is a value of the run's report (results.md) or environment (env.txt); raw.tsv's
# thousands of values would let almost any number through.
def cited_units(text):  # [(runs, text)] for each citing paragraph with its tables and comment
    paras = [p for p in re.split(r"\n\s*\n|\n(?=- )", text) if p.strip()]
    out, i = [], 0
    while i < len(paras):
        runs = sorted(set(find(r"tools/bench/results/([-\w.]+)/", paras[i])))
        if not runs:
            i += 1
            continue
        unit, j = [paras[i]], i + 1
        while j < len(paras) and (paras[j].lstrip().startswith("|") or paras[j].startswith("  ")):
            unit.append(paras[j])
            j += 1
        if j > i + 1 and j < len(paras) and not paras[j].lstrip().startswith("#"):
            unit.append(paras[j])
            j += 1
        out.append((runs, "\n".join(unit)))
        i = j
    return out


diag, cited = [], 0
for d in sorted(docs):
    for runs, unit in cited_units(docs[d]):
        cited += 1
        values = set()
        for r in runs:
            files = glob.glob(os.path.join(TOP, "tools/bench/results", r, "*.md")) + glob.glob(
                os.path.join(TOP, "tools/bench/results", r, "env.txt"))
            if not files:
                diag.append("%s cites tools/bench/results/%s/, which is not committed" % (d, r))
            for f in files:
                values |= {v.rstrip("0").rstrip(".") for v in re.findall(r"\d+\.\d+", read(os.path.relpath(f, TOP)))}
        for v in sorted(set(re.findall(r"(?<![\w.])\d+\.\d+(?!\.?\d)", unit))):
            if v.rstrip("0").rstrip(".") not in values:
                diag.append("%s, where it cites %s: %s is in no file of that run" % (d, ", ".join(runs), v))
result(cited > 0 and not diag, "benchmark numbers: what cites a results folder states only its values (%d places)" % cited, diag)

# ... and no benchmark number stands anywhere else: a measured time (a decimal number of
# seconds or milliseconds), a ratio ("2.5x", "2.5 times") or an interval ("[0.93-1.01]") in a
# paragraph that cites no results folder fails, unless the paragraph says it quotes the
# uncommitted policy sweeps of 2026-12-03 (tools/bench/policy-sweep.sh; POLICY.md marks them).
MEASURED = r"(?<![\w.])(\d+\.\d+ ?(?:s|ms)\b|\d+(?:\.\d+)?x\b|\d+\.\d+ times\b|\[\d+\.\d+-\d+\.\d+\])"
diag, marked = [], 0
for d in sorted(docs):
    cited_text = "\n".join(u for _, u in cited_units(docs[d]))
    for para in (p for p in re.split(r"\n\s*\n|\n(?=- )", docs[d]) if p.strip()):
        if para in cited_text or not re.search(MEASURED, para):
            continue
        if "uncommitted policy sweep" in para:
            marked += 1
            continue
        diag.append("%s states %s without citing a committed results folder (tools/bench/results/<run>/)"
                    % (d, ", ".join(sorted(set(re.findall(MEASURED, para)))[:4])))
result(not diag, "benchmark numbers: none without a committed results folder (%d paragraphs quote the uncommitted policy sweeps, marked)" % marked, diag)

# CI times: each row of the table in .ci/times/README.md names the committed record of its run
# (.ci/times/<run>.log, scripts/record-ci-time.sh: the wall time, then what the run printed),
# and every "N s" and "N passed/failed/skipped" the row states is in that record; README.md
# states no CI figure of its own but points to that table.
times_doc = read(os.path.join(TOP, ".ci/times/README.md")) if os.path.isfile(os.path.join(TOP, ".ci/times/README.md")) else ""
diag, rows = [], [l for l in times_doc.splitlines() if re.match(r"\| 20\d\d-", l)]
figure = r"(?<![\w.])(\d+ (?:s|passed|failed|skipped))\b"
for row in rows:
    recs = sorted(set(find(r"\(([-\w.]+\.log)\)", row)))
    missing = [r for r in recs if not os.path.isfile(os.path.join(TOP, ".ci/times", r))]
    diag += [".ci/times/README.md cites %s, which is not committed" % r for r in missing]
    if not recs:
        diag.append(".ci/times/README.md: a row cites no record: %s" % row[:60])
    have = set(find(figure, "".join(read(os.path.join(".ci/times", r)) for r in recs if r not in missing)))
    diag += [".ci/times/README.md states %s for %s, which is not in its record" % (v, recs)
             for v in sorted(set(find(figure, row))) if v not in have]
readme_ci = [p for p in re.split(r"\n\s*\n", docs.get("README.md", "")) if "make check" in p and find(figure, p)]
diag += ["README.md states a CI figure (%s); the records belong in .ci/times/README.md" % ", ".join(find(figure, p))
         for p in readme_ci]
if ".ci/times/README.md" not in docs.get("README.md", ""):
    diag.append("README.md does not point to .ci/times/README.md")
result(rows and not diag, "CI times: every row of .ci/times/README.md states only figures of its record (%d rows)" % len(rows), diag)

# The demo's transcript (Documentation/demo-output.txt, one real run of make demo): its XFS
# growth table follows the AG sizes of its mkfs table, and its closing words say what the
# tables show (the demo scenario checks the same on every run of make check).
demo, diag = docs.get("Documentation/demo-output.txt", ""), []
ags = {v: (int(a), int(m)) for v, a, m in find(r"(?m)^(unpatched|with the series)(?: [\d.]+)? +(\d+) +(\d+) +\d+$", demo)}
rows = [tuple(map(int, r)) for r in find(r"(?m)^ +(\d+) +(\d+) +(\d+)$", demo)]
if sorted(ags) != ["unpatched", "with the series"] or not rows:
    diag.append("Documentation/demo-output.txt has no mkfs.xfs table or no growth table")
else:
    for size, a, b in rows:
        want = tuple(-(-size * 1024 // ags[v][1]) for v in ("with the series", "unpatched"))
        if (a, b) != want:
            diag.append("growth table row %d GiB: %d and %d AGs, its AG sizes give %d and %d" % ((size, a, b) + want))
    said = find(r"series' XFS started with (\d+) AGs of (\d+) MiB", demo) + find(r"(?m)^started with (\d+) AGs of (\d+) MiB", demo)
    if [tuple(map(int, x)) for x in said] != [ags["with the series"], ags["unpatched"]]:
        diag.append("the closing words say %s, the mkfs table %s" % (said, ags))
result(not diag, "the demo's transcript agrees with itself (%d growth rows)" % len(rows), diag)

print("KTAP version 1\n1..%d" % len(results))
for i, (ok, name, diag, skip) in enumerate(results, 1):
    print("".join("# %s\n" % l for l in diag) + "%sok %d %s%s" % ("" if ok else "not ", i, name,
                                                                   " # SKIP " + skip if skip else ""))
raise SystemExit(0 if all(r[0] for r in results) else 1)
