"""scripts/tidy-check's driver: runs clang-tidy on each file, remembering the files found clean.

See scripts/tidy-check for what is checked and how the cache is keyed. Exit status: 0 clean, 1 a
finding, 2 a file that does not exist.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

KEEP_DAYS = 30  # a remembered file not seen for this long is forgotten


def tracked_files(root, entries):
    tracked = set(subprocess.run(["git", "-C", root, "ls-files", "*.cc"], capture_output=True,
                                 text=True, check=True).stdout.split())
    out = []
    for path in entries:
        rel = os.path.relpath(path, root)
        if rel in tracked and not rel.endswith("_test.cc"):
            out.append(rel)
    return sorted(set(out))


def load_db(db):
    entries = {}
    with open(os.path.join(db, "compile_commands.json"), encoding="utf-8") as f:
        for entry in json.load(f):
            path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
            entries.setdefault(path, entry)
    return entries


def arguments(entry):
    if "arguments" in entry:
        return list(entry["arguments"])
    return shlex.split(entry["command"])


def preprocess_command(entry):
    """The entry's compile command as `-E -P -CC -dD` to stdout, or None where it has no -c."""
    args = arguments(entry)
    out = []
    skip = False
    seen_c = False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a == "-c":
            seen_c = True
            out += ["-E", "-P", "-CC", "-dD"]  # comments and macros kept: a NOLINT is one
            continue
        out.append(a)
    return out if seen_c else None


def cache_key(root, rel, entry, salt):
    """A hash of everything clang-tidy's verdict on the file depends on, or None if unknown."""
    if entry is None:
        return None
    cmd = preprocess_command(entry)
    if cmd is None:
        return None
    run = subprocess.run(cmd, cwd=entry["directory"], capture_output=True)
    if run.returncode != 0:
        return None  # clang-tidy will say why
    root_bytes = root.encode()
    h = hashlib.sha256()
    h.update(salt)
    h.update(rel.encode() + b"\0")
    flags = " ".join(cmd).replace(root, "<root>").replace(entry["directory"], "<dir>")
    h.update(flags.encode() + b"\0")
    h.update(run.stdout.replace(root_bytes, b"<root>"))
    return h.hexdigest()


def check(args, rel, entry, salt):
    """(rel, remembered, returncode, log)"""
    key = cache_key(args.root, rel, entry, salt) if args.cache != "off" else None
    mark = os.path.join(args.cache, key[:2], key) if key else None
    if mark and os.path.exists(mark):
        os.utime(mark)
        return rel, True, 0, ""
    run = subprocess.run([args.tidy, "--quiet", "-p", args.db,
                          "--config-file=" + os.path.join(args.root, ".clang-tidy"), rel],
                         cwd=args.root, capture_output=True, text=True)
    if run.returncode == 0 and mark:
        try:
            os.makedirs(os.path.dirname(mark), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(mark))
            os.close(fd)
            os.replace(tmp, mark)
        except OSError as e:
            print(f"tidy-check: cannot remember {rel} in {args.cache}: {e}", file=sys.stderr)
    return rel, False, run.returncode, run.stdout + run.stderr


def forget_old(cache):
    cutoff = time.time() - KEEP_DAYS * 86400
    for dirpath, _, names in os.walk(cache):
        for name in names:
            path = os.path.join(dirpath, name)
            try:
                if os.path.getmtime(path) < cutoff:
                    os.remove(path)
            except OSError:
                pass


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--root", required=True)
    p.add_argument("--db", required=True)
    p.add_argument("--tidy", required=True)
    p.add_argument("--jobs", type=int, required=True)
    p.add_argument("--cache", required=True)
    p.add_argument("files", nargs="*")
    args = p.parse_args()
    args.root = os.path.realpath(args.root)
    db = load_db(args.db)
    if args.files:
        files = []
        for f in args.files:
            if not os.path.isfile(f):
                print(f"tidy-check: no such file: {f}", file=sys.stderr)
                return 2
            files.append(os.path.realpath(f))
    else:
        files = [os.path.join(args.root, rel) for rel in tracked_files(args.root, db)]
    version = subprocess.run([args.tidy, "--version"], capture_output=True, text=True).stdout
    with open(os.path.join(args.root, ".clang-tidy"), "rb") as f:
        salt = version.encode() + b"\0" + f.read() + b"\0"
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(
            lambda path: check(args, os.path.relpath(path, args.root)
                               if path.startswith(args.root + os.sep) else path,
                               db.get(os.path.normpath(path)), salt), files))
    failed = [r for r in results if r[2] != 0]
    remembered = sum(1 for r in results if r[1])
    if failed:
        for rel, _, _, log in failed:
            lines = log.splitlines()
            shown = [i for i, line in enumerate(lines) if re.search(r"(warning|error): ", line)]
            if not shown:
                print(log)
                continue
            keep = sorted({j for i in shown for j in range(i, min(i + 5, len(lines)))})
            print("\n".join(lines[j] for j in keep))
        print("tidy-check: findings above (fix them, or NOLINT(check) with a reason on a false one)",
              file=sys.stderr)
        return 1
    if args.cache != "off" and os.path.isdir(args.cache):
        forget_old(args.cache)
    print(f"tidy-check: {len(results)} files clean under .clang-tidy "
          f"({len(results) - remembered} checked, {remembered} remembered clean from {args.cache})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
