"""merge.py OUTDIR RESULTS.json... -- one report from several runs of the suite.

A device call has a time limit, so the whole suite with egg-cc may be run as
several calls, each over a subset of the cases (run.sh --cases).  This joins their
results.json into one results.{json,md} and results.png, as if from one run: the
cases in name order, each with the numbers its own run measured.  The floor of
every case is computed from the first run's measured ceilings; each run's own
ceilings, date and commit are kept under meta.parts so the difference between
machines can be seen.  A case present in several runs is taken from the last.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402


def merge(paths):
    parts, cases = [], {}
    for p in paths:
        with open(p) as f:
            r = json.load(f)
        m = r["meta"]
        parts.append({"file": p, "date": m.get("date"), "commit": m.get("commit"),
                      "ceilings": m.get("ceilings"), "cases": [c["case"] for c in r["cases"]]})
        for c in r["cases"]:
            c.pop("derived", None)
            cases[c["case"]] = c
        if not parts[0].get("meta"):
            parts[0]["meta"] = m
    meta = dict(parts[0].pop("meta"))
    for p in parts[1:]:
        if not meta.get("fastpath"):
            with open(p["file"]) as f:
                meta["fastpath"] = json.load(f)["meta"].get("fastpath")
    meta["cases"] = len(cases)
    meta["date"] = " + ".join(sorted(set(p["date"] for p in parts if p["date"])))
    meta["commit"] = " + ".join(sorted(set(p["commit"] for p in parts if p["commit"])))
    meta["parts"] = parts
    return meta, [cases[k] for k in sorted(cases)]


def main(argv):
    if len(argv) < 2:
        print("usage: merge.py OUTDIR RESULTS.json...", file=sys.stderr)
        return 2
    os.makedirs(argv[0], exist_ok=True)
    meta, rows = merge(argv[1:])
    report.write_all(argv[0], meta, rows, measured=bool(meta["ceilings"].get("measured")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
