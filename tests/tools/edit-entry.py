#!/usr/bin/env python3
"""edit-entry.py -- changes cache entries the way someone who can write a cache
but does not hold its secret would: the checksum is recomputed the way egg
computes it (SHA-256 of the entry without checksum and signature, as egg writes
it), any signature is kept as it was.

    edit-entry.py [--name NAME] [--source EXPR] [--recipe R] FILE...

--source: the new source, a Python expression of `s` (the old one); only
winners are changed.  --recipe: the generator's recipe version.  --name: only
entries of that kernel.  Files that are not cache entries are skipped.  Exit
status 1 when no entry was changed."""
import argparse, hashlib, json, sys

ap = argparse.ArgumentParser()
ap.add_argument("--name")
ap.add_argument("--source")
ap.add_argument("--recipe")
ap.add_argument("files", nargs="+")
o = ap.parse_args()
changed = 0
for path in o.files:
    try:
        doc = json.load(open(path))
    except Exception:
        continue
    if not isinstance(doc, dict) or doc.get("schema") != "egg-cache-entry":
        continue
    if o.name is not None and doc.get("name") != o.name:
        continue
    if o.source is not None:
        if doc.get("outcome") != "winner":
            continue
        s = doc["source"]
        doc["source"] = eval(o.source, {"s": s})
    if o.recipe is not None:
        doc["generator"]["recipe"] = o.recipe
    sig = doc.pop("signature", None)
    doc.pop("checksum", None)
    canon = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    doc["checksum"] = hashlib.sha256(canon.encode()).hexdigest()
    if sig:
        doc["signature"] = sig
    open(path, "w").write(json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n")
    changed += 1
sys.exit(0 if changed else 1)
