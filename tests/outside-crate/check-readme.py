"""The README's dependency lines and this crate's must agree.

The README (and the guide's "Getting started") tell a user which lines to
put in `Cargo.toml`: a `[dependencies]` block and, for the first test, a
`[dev-dependencies]` block. This crate is made from those words, so each
block must name the same crates with the same settings as this crate's
`Cargo.toml`. The one difference allowed is `mcp-runtime`'s `path`: the
README's is relative to a user's crate beside the clone, this crate's to
its place inside the clone; both must lead to the runtime's folder.
"""

import pathlib
import re
import sys
import tomllib

root = pathlib.Path(__file__).resolve().parents[2]
here = pathlib.Path(__file__).resolve().parent
crate = tomllib.loads((here / "Cargo.toml").read_text())
problems = []


def blocks(text):
    """Every ```toml block that starts with [dependencies] or [dev-dependencies]."""
    for body in re.findall(r"^```toml\n(.*?)^```", text, flags=re.M | re.S):
        parsed = tomllib.loads(body)
        for table in ("dependencies", "dev-dependencies"):
            if body.startswith(f"[{table}]"):
                yield table, parsed[table]


def runtime_path(where, spec, base):
    path = spec.get("path") if isinstance(spec, dict) else None
    if path is None:
        problems.append(f"{where}: mcp-runtime is not a path dependency: {spec!r}")
        return None
    rest = {k: v for k, v in spec.items() if k != "path"}
    if rest:
        problems.append(f"{where}: mcp-runtime has more than a path: {rest!r}")
    if base is not None and (base / path).resolve() != (root / "mcp-runtime").resolve():
        problems.append(f"{where}: mcp-runtime's path {path!r} does not lead to the runtime")
    return path


both = ("dependencies", "dev-dependencies")
for doc, required in (("README.md", both), ("docs/src/getting-started.md", both), ("docs/src/testing.md", both[1:])):
    seen = set()
    for table, deps in blocks((root / doc).read_text()):
        seen.add(table)
        ours = dict(crate.get(table, {}))
        theirs = dict(deps)
        if "mcp-runtime" in theirs or "mcp-runtime" in ours:
            readme_path = runtime_path(f"{doc} [{table}]", theirs.pop("mcp-runtime", None), None)
            runtime_path(f"tests/outside-crate/Cargo.toml [{table}]", ours.pop("mcp-runtime", None), here)
            # The README's path: the runtime's folder inside a clone beside the user's crate.
            if readme_path is not None and not readme_path.endswith("/mcp-runtime"):
                problems.append(f"{doc}: mcp-runtime's path {readme_path!r} is not the clone's mcp-runtime folder")
        if theirs != ours:
            problems.append(f"{doc} [{table}] says {theirs!r}, tests/outside-crate/Cargo.toml has {ours!r}")
    for table in required:
        if table not in seen:
            problems.append(f"{doc}: no ```toml block starting with [{table}]")

if problems:
    print("the README's dependency lines and tests/outside-crate disagree:", file=sys.stderr)
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    sys.exit(1)
print("the README's and the guide's dependency lines are tests/outside-crate's")
