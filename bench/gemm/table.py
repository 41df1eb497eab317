#!/usr/bin/env python3
"""table.py OUTDIR -- bench/gemm's table from OUTDIR/checks.txt (the check
programs' CHECK lines), OUTDIR/cublas.txt and OUTDIR/shapes.txt (run.sh): per
case, every candidate's time, TFLOP/s and ratio to cuBLAS (SGEMM, or its TF32
tensor-op math for a tf32 case; alone, and
followed by the epilogue as a second kernel), fastest first; then the best
correct candidate of each case.  Exit status 1 when a candidate is wrong or a
program failed."""
import re
import sys

out = sys.argv[1]
shapes, cublas, checks, errors = {}, {}, {}, []
for line in open(out + "/shapes.txt"):
    f = line.split()
    d = dict(x.split("=") for x in f[1:5])
    shapes[f[0]] = (int(d["M"]), int(d["N"]), int(d["K"]), int(d["batch"]), f[5], f[6],
                    f[7] if len(f) > 7 else "fp32")
for line in open(out + "/cublas.txt"):
    m = re.match(r"CUBLAS (\S+) gemm_ms=(\S+) total_ms=(\S+)", line)
    if m:
        cublas[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    else:
        errors.append("cublas: " + line.strip())
for line in open(out + "/checks.txt"):
    if line.startswith("CHECK-ERROR"):
        errors.append(line.strip())
        continue
    m = re.match(r"CHECK (\S+)\s+(\S+) ref_ms=(\S+) cand_ms=(\S+) max_err=(\S+) correct=(\S+) ?(.*)", line)
    if not m:
        continue
    name, idx, ref, cand, err, ok, label = m.groups()
    if idx == "--":
        errors.append("%s: no candidates" % name)
        continue
    checks.setdefault(name, []).append((float(cand), int(idx), float(ref), err, ok, label))

bad = bool(errors)
best = []
print("# bench/gemm\n")
for name in sorted(shapes):
    M, N, K, B, layout, epi, prec = shapes[name]
    flops = 2.0 * M * N * K * B
    cb, ct = cublas.get(name, (0.0, 0.0))
    print("## %s: M=%d N=%d K=%d batch=%d, %s, epilogue %s" % (name, M, N, K, B, layout, epi))
    print("\ncuBLAS %s %.4f ms (%.1f TFLOP/s), with the epilogue as a second kernel %.4f ms\n"
          % ("SGEMM" if prec == "fp32" else "with TF32 tensor cores", cb, flops / cb / 1e9 if cb else 0, ct))
    print("| # | candidate | ms | TFLOP/s | x cuBLAS | x cuBLAS+epilogue | max_err | correct |")
    print("|---|---|---|---|---|---|---|---|")
    rows = sorted(checks.get(name, []), key=lambda r: (r[4] != "yes", r[0] if r[0] > 0 else 1e9))
    for cand, idx, ref, err, ok, label in rows:
        tf = flops / cand / 1e9 if cand > 0 else 0
        print("| %d | %s | %.4f | %.1f | %.2fx | %.2fx | %s | %s |"
              % (idx, label, cand, tf, cb / cand if cand > 0 else 0, ct / cand if cand > 0 else 0, err, ok))
        bad |= ok != "yes"
    good = [r for r in rows if r[4] == "yes" and r[0] > 0]
    if good:
        best.append((name, good[0], cb, ct, flops))
    print()
print("## best correct candidate per case\n")
print("| case | candidate | ms | TFLOP/s | x cuBLAS | x cuBLAS+epilogue | reference ms |")
print("|---|---|---|---|---|---|---|")
for name, (cand, idx, ref, err, ok, label), cb, ct, flops in best:
    print("| %s | %s | %.4f | %.1f | %.2fx | %.2fx | %.3f |"
          % (name, label, cand, flops / cand / 1e9, cb / cand, ct / cand, ref))
if errors:
    print("\n## errors\n")
    for e in errors:
        print("- " + e)
sys.exit(1 if bad else 0)
