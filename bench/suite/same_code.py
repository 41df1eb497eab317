#!/usr/bin/env python3
"""same_code.py -- do two builds of egg generate the same candidates for the suite?

    python3 bench/suite/same_code.py OLD_EGG OLD_TEMPLATES NEW_EGG NEW_TEMPLATES

Analyzes every bench case (bench/suite/cases/*.cu) and the example
(examples/kernels.cu) with NEW_EGG, runs `egg generate` on each bundle with both
builds (each with its own builtin templates folder) and compares the candidates'
labels and sources.  When they are identical, a suite table measured with the old
generator holds for the new one's code.  The shared helpers (templates/prelude.cu,
copied into every candidate) are compared apart: a bundle whose candidates differ
only in the prelude, and call none of the helpers whose text changed, counts as
identical (an unused helper compiles to nothing).  Prints one line per bundle that
differs and a count; exits 1 if any differs.  (An old build: `git worktree add /tmp/old
COMMIT && cd /tmp/old && autoreconf -fi && ./configure && make egg`.)"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile


def candidates(egg, templates, bundle_path):
    out = subprocess.run([egg, "generate", bundle_path], capture_output=True, text=True,
                         env=dict(os.environ, EGG_BUILTIN_TEMPLATES=templates), check=True)
    return [(c["label"], c["source"]) for c in json.loads(out.stdout)["candidates"]]


def helpers(prelude):
    """name -> text of each helper the prelude defines (from its definition to the next)"""
    lines = prelude.split("\n")
    starts = []
    for i, line in enumerate(lines):
        m = re.match(r"^(?:template <[^>]*> )?static .*?\b(egg_\w+)\(", line)
        if m:
            starts.append((i, m.group(1)))
    out = {}
    for k, (i, name) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        out[name] = "\n".join(lines[i:end])
    return out


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    old_egg, old_tpl, new_egg, new_tpl = (os.path.abspath(a) for a in sys.argv[1:])
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cases = sorted(glob.glob(os.path.join(top, "bench/suite/cases/*.cu")))
    cases.append(os.path.join(top, "examples/kernels.cu"))
    with open(os.path.join(old_tpl, "prelude.cu")) as f:
        old_pre = f.read()
    with open(os.path.join(new_tpl, "prelude.cu")) as f:
        new_pre = f.read()
    old_h, new_h = helpers(old_pre), helpers(new_pre)
    changed = sorted(n for n in set(old_h) | set(new_h) if old_h.get(n) != new_h.get(n))
    if changed:
        print("prelude helpers changed: %s" % ", ".join(changed))

    def body(cands, pre):
        return [(label, src.replace(pre, "@PRELUDE@")) for label, src in cands]

    same = differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bundle.json")
        for case in cases:
            r = subprocess.run([new_egg, "analyze", "-I", os.path.join(top, "bench/suite"),
                                os.path.basename(case)], cwd=os.path.dirname(case),
                               capture_output=True, text=True, check=True)
            for b in json.loads(r.stdout):
                with open(path, "w") as f:
                    json.dump(b, f)
                old_c, new_c = candidates(old_egg, old_tpl, path), candidates(new_egg, new_tpl, path)
                old_b, new_b = body(old_c, old_pre), body(new_c, new_pre)
                calls = [n for n in changed if any(re.search(r"\b%s\b" % n, src) for _, src in new_b + old_b)]
                if old_c == new_c or (old_b == new_b and not calls):
                    same += 1
                elif old_b == new_b:
                    differ += 1
                    print("differs: %s %s (calls changed helpers: %s)" % (os.path.basename(case), b["name"],
                                                                         ", ".join(calls)))
                else:
                    differ += 1
                    print("differs: %s %s" % (os.path.basename(case), b["name"]))
    print("bundles with identical candidates: %d, different: %d" % (same, differ))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
