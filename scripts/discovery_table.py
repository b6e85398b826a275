#!/usr/bin/env python3
"""The discovery benchmark's reader: for campaign folders that ran on one torch release, the time
to first find of each upstream bug the catalogue names, and what each campaign spent.

Usage: discovery_table.py [--bugs FILE] [--catalogue DIR] CAMPAIGN_DIR...

The bugs are a fixed list (--bugs, default corpus/discovery/bugs-2.11.0.json) of upstream bugs
live on one release, each with the catalogue entries (--catalogue, default corpus/regression) its
findings match; every entry must expect a divergence on the list's release. A campaign found a bug
when one of its buckets names one of the bug's entries as its catalogue entry (the
summary's "known", or "unclaimed" for a form the entry's fix misses); the time is the bucket's
first_found_s. Prints a table of campaigns (scheduler, seed, programs, programs/s, buckets, new
root causes), one of bugs (time to first find per campaign, how many found it, the median), and,
for yield-scheduled campaigns, each arm's share of the core-seconds and what it found first.
Exit 2 on a folder, summary or entry that is not one, with the reason.
"""
import json
import os
import re
import statistics
import sys

SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.json$")
CLAUSE = re.compile(r"^(>=|<=|==|>|<)([0-9]+(?:\.[0-9]+){0,2})$")
MAX_JSON_BYTES = 64 << 20


class BadInput(Exception):
    pass


def read_json(path):
    try:
        if os.path.getsize(path) > MAX_JSON_BYTES:
            raise BadInput(f"{path}: larger than {MAX_JSON_BYTES >> 20} MiB")
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput(f"{path}: {e}") from None


def version_key(text):
    """2.11.0+cu130 -> (2, 11, 0); a version that is not one is an error."""
    m = re.match(r"^([0-9]+)\.([0-9]+)(?:\.([0-9]+))?", text)
    if not m:
        raise BadInput(f"not a torch version: {text!r}")
    return tuple(int(g or 0) for g in m.groups())


def in_range(version, spec):
    """Whether version (a tuple) is in a spec such as '>=2.11.0,<2.12'."""
    for clause in spec.split(","):
        m = CLAUSE.match(clause.strip())
        if not m:
            raise BadInput(f"not a release range: {spec!r}")
        op, bound = m.group(1), version_key(m.group(2))
        ok = {">=": version >= bound, "<=": version <= bound, "==": version == bound,
              ">": version > bound, "<": version < bound}[op]
        if not ok:
            return False
    return True


def load_bugs(path, catalogue):
    """[(bug, area, [entry file names])] from a bug list, each entry read from the catalogue and
    checked to expect a divergence on the list's torch."""
    bugs = read_json(path)
    if not isinstance(bugs, dict) or bugs.get("format") != "mmdiff.discovery-bugs" \
            or not isinstance(bugs.get("bugs"), list):
        raise BadInput(f"{path}: not a discovery bug list")
    torch = version_key(str(bugs.get("torch", "")))
    out = []
    for b in bugs["bugs"]:
        entries = b.get("entries") if isinstance(b, dict) else None
        if not isinstance(entries, list) or not entries or not isinstance(b.get("bug"), str) \
                or not all(isinstance(e, str) and SAFE_NAME.match(e) for e in entries):
            raise BadInput(f"{path}: a bug must name itself and its catalogue entries' files")
        for name in entries:
            entry = read_json(os.path.join(catalogue, name))
            expected = entry.get("expected") if isinstance(entry, dict) else None
            if not isinstance(expected, list):
                raise BadInput(f"{catalogue}/{name}: not a catalogue entry")
            verdicts = [e.get("verdict") for e in expected
                        if isinstance(e, dict) and in_range(torch, str(e.get("torch", "")))]
            if verdicts[:1] != ["diverge"]:
                raise BadInput(f"{name}: the entry does not expect {b['bug']} on torch "
                               f"{bugs['torch']}")
        out.append((b["bug"], str(b.get("area", "")), entries))
    return out


def campaign(folder):
    s = read_json(os.path.join(folder, "summary.json"))
    if not isinstance(s, dict) or s.get("format") != "mmdiff.fuzz-summary":
        raise BadInput(f"{folder}/summary.json: not a campaign summary")
    buckets = s.get("buckets")
    if not isinstance(buckets, list) or not all(isinstance(b, dict) for b in buckets):
        raise BadInput(f"{folder}/summary.json: \"buckets\" must be a list of objects")
    found = {}  # entry file name -> first_found_s
    for b in buckets:
        t = b.get("first_found_s")
        if not isinstance(t, (int, float)) or t < 0:
            raise BadInput(f"{folder}/summary.json: a bucket without its first_found_s")
        for key in ("known", "unclaimed"):
            rec = b.get(key)
            if isinstance(rec, dict) and isinstance(rec.get("source"), str):
                name = os.path.basename(rec["source"])
                found[name] = min(found.get(name, t), t)
    resume = s.get("resume") if isinstance(s.get("resume"), dict) else {}
    scheduler = resume.get("scheduler", "coverage" if resume.get("steer") else "none")
    steering = s.get("steering") if isinstance(s.get("steering"), dict) else {}
    return {
        "folder": folder,
        "seed": s.get("seed"),
        "scheduler": scheduler,
        "cases": s.get("cases", 0),
        "elapsed_s": s.get("elapsed_s", 0),
        "buckets": len(buckets),
        "new_root_causes": s.get("new_root_causes", 0),
        "found": found,
        "arms": steering.get("arms") if isinstance(steering.get("arms"), list) else None,
    }


def seconds(t):
    return "-" if t is None else f"{t:.0f} s"


def table(rows):
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def main(argv):
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus")
    options = {"--catalogue": os.path.join(corpus, "regression"),
               "--bugs": os.path.join(corpus, "discovery", "bugs-2.11.0.json")}
    folders = []
    args = iter(argv)
    for a in args:
        if a in options:
            options[a] = next(args, None)
            if options[a] is None:
                raise BadInput(f"{a} needs a value")
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        elif a.startswith("-"):
            raise BadInput(f"unknown argument {a!r} (see --help)")
        else:
            folders.append(a)
    if not folders:
        raise BadInput("give the campaign folders (see --help)")
    bugs = load_bugs(options["--bugs"], options["--catalogue"])
    runs = [campaign(f) for f in folders]
    rows = [("campaign", "scheduler", "seed", "programs", "elapsed", "programs/s", "buckets",
             "new root causes")]
    for r in runs:
        rate = r["cases"] / r["elapsed_s"] if r["elapsed_s"] else 0
        rows.append((os.path.basename(os.path.normpath(r["folder"])), r["scheduler"], r["seed"],
                     r["cases"], seconds(r["elapsed_s"]), f"{rate:.2f}", r["buckets"],
                     r["new_root_causes"]))
    print(table(rows))
    print()
    rows = [("bug", "area") + tuple(os.path.basename(os.path.normpath(r["folder"]))
                                    for r in runs) + ("found", "median")]
    for bug, area, entries in bugs:
        times = [min((r["found"][e] for e in entries if e in r["found"]), default=None)
                 for r in runs]
        hits = [t for t in times if t is not None]
        rows.append((bug, area) + tuple(seconds(t) for t in times) +
                    (f"{len(hits)}/{len(runs)}",
                     seconds(statistics.median(hits)) if hits else "-"))
    print(table(rows))
    for r in runs:
        if not r["arms"]:
            continue
        print()
        print(f"{os.path.basename(os.path.normpath(r['folder']))}: the yield scheduler's arms")
        rows = [("arm", "programs", "core-s", "share", "new buckets", "new rewrites")]
        for a in r["arms"]:
            if isinstance(a, dict):
                rows.append((a.get("arm"), a.get("programs"), f"{a.get('spend_s', 0):.0f}",
                             f"{100 * a.get('spend_share', 0):.1f} %",
                             f"{a.get('new_buckets', 0):.1f}", f"{a.get('new_rewrites', 0):.1f}"))
        print(table(rows))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BadInput as e:
        print(f"discovery_table.py: {e}", file=sys.stderr)
        sys.exit(2)
