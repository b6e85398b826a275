# Validates mmdiff JSON files (reports, programs, regression entries, fuzz summaries) against the schemas here.
"""Usage: python validate.py [--schema NAME] FILE...

Each file is checked with the JSON Schema draft 2020-12 validator of the `jsonschema` package against
NAME.schema.json in this folder (e.g. --schema report.v1), or, without --schema, against the schema its
"format" and "version" fields name. Prints one line per file ("ok FILE" or "invalid FILE: where: why")
and exits 0 when every file is valid, 1 when one is not, 2 on bad usage (unknown schema, no jsonschema).
"""
import json
import pathlib
import sys

SCHEMA_DIR = pathlib.Path(__file__).resolve().parent
BY_FORMAT = {
    "mmdiff.report": "report",
    "mmdiff.program": "program",
    "mmdiff.regression": "regression-entry",
    "mmdiff.fuzz-summary": "fuzz-summary",
    "mmdiff.releases": "releases",
}


def load_schemas():
    from referencing import Registry, Resource
    schemas = {}
    for f in sorted(SCHEMA_DIR.glob("*.schema.json")):
        schemas[f.name[: -len(".schema.json")]] = json.loads(f.read_text())
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values())
    return schemas, registry


def main(argv):
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        print("validate.py: the jsonschema package is not installed", file=sys.stderr)
        return 2
    schema_name = None
    if len(argv) >= 2 and argv[0] == "--schema":
        schema_name, argv = argv[1], argv[2:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    schemas, registry = load_schemas()
    for name, s in schemas.items():
        Draft202012Validator.check_schema(s)  # a broken schema must not pass files silently
    if schema_name is not None and schema_name not in schemas:
        print(f"validate.py: no schema {schema_name!r}; have: {', '.join(sorted(schemas))}", file=sys.stderr)
        return 2
    bad = 0
    for path in argv:
        try:
            doc = json.loads(pathlib.Path(path).read_text())
        except (OSError, ValueError) as e:
            print(f"invalid {path}: cannot read JSON: {e}")
            bad += 1
            continue
        name = schema_name
        if name is None:
            fmt = doc.get("format") if isinstance(doc, dict) else None
            version = doc.get("version") if isinstance(doc, dict) else None
            name = f"{BY_FORMAT.get(fmt, '?')}.v{version}"
            if name not in schemas:
                print(f"invalid {path}: no schema for format {fmt!r} version {version!r}")
                bad += 1
                continue
        validator = Draft202012Validator(schemas[name], registry=registry)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if not errors:
            print(f"ok {path} ({name})")
            continue
        bad += 1
        for e in errors[:5]:
            where = "/" + "/".join(str(p) for p in e.absolute_path)
            print(f"invalid {path} ({name}): at {where}: {e.message[:300]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
