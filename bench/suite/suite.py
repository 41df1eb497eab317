"""suite.py -- build and run the benchmark suite (run.sh is its front door).

Steps: parse every case (casefile.py), write its glue table, build it with plain
nvcc (the reference column) and, when --egg-cc is given, with egg-cc (the egg
column), link each with bench_main.cu, then on the GPU: measure the ceilings once
(copy bandwidth and fp32 FMA rate from bench_main --ceilings, cuBLAS sgemm through
torch), run each binary (timing + dumps), check each dump against PyTorch in
float64 (torch_ref.py), time PyTorch eager on the same sizes, and write
results.json, results.md and results.png (report.py).

--no-gpu stops after the build (and --no-build before it): the report is then
written with the nominal H200 ceilings and no measurements, which is what the CPU
tests exercise.  Python 3 stdlib only; torch and matplotlib are used when present.
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import casefile  # noqa: E402
import report  # noqa: E402

NOMINAL = {"gpu": "nominal H200 (not measured)", "copy_bytes_per_s": 4.3e12, "fp32_flops_per_s": 67e12,
           "measured": False}


def log(msg):
    print("bench: %s" % msg, file=sys.stderr, flush=True)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="run.sh", description="egg's benchmark suite")
    p.add_argument("outdir")
    p.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"), help="plain nvcc command (reference)")
    p.add_argument("--egg-cc", default=None, help="egg-cc command for the egg column (e.g. 'egg-cc' or 'egg-cc nvcc')")
    p.add_argument("--cases", default=None, help="regular expression selecting case names")
    p.add_argument("--cases-dir", default=os.path.join(HERE, "cases"),
                   help="folder of case files (default: the suite's cases/); PyTorch equivalents of "
                        "cases outside cases/ come from DIR/torch_refs.py")
    p.add_argument("--flags", default="-O3 -arch=sm_90", help="code generation flags for every build")
    p.add_argument("--no-gpu", "--dry-run", dest="no_gpu", action="store_true", help="build only, measure nothing")
    p.add_argument("--no-build", action="store_true", help="with --no-gpu: only parse, check and write glue")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel reference builds")
    p.add_argument("--budget-ms", type=float, default=1000.0, help="timing budget per case and column")
    p.add_argument("--keep-dumps", action="store_true", help="keep the correctness dumps")
    p.add_argument("--flush", choices=("write", "read"), default="read",
                   help="how the L2 is flushed before each timed call: by writing 256 MiB (dirty lines the "
                        "call may pay to write back) or by reading it (clean lines)")
    p.add_argument("--no-overheads", action="store_true",
                   help="skip timing the fast path (no annotation) against nvcc: a re-run of a few cases")
    p.add_argument("--work", default=None,
                   help="where builds and dumps go (kept); default: a temporary folder, removed at the end")
    p.add_argument("--case-timeout", type=float, default=300.0, help="seconds before a case run is killed")
    p.add_argument("--commit", default=os.environ.get("EGG_BENCH_COMMIT"), help="commit recorded in results")
    return p.parse_args(argv)


def outside_suite(args):
    """Whether the cases come from a folder other than the suite's own cases/."""
    return os.path.realpath(args.cases_dir) != os.path.realpath(os.path.join(HERE, "cases"))


def select_cases(regex, cdir):
    names = sorted(f for f in os.listdir(cdir) if f.endswith(".cu"))
    if regex:
        names = [n for n in names if re.search(regex, n[:-3])]
    cases = []
    for n in names:
        cases.append(casefile.parse_case(os.path.join(cdir, n)))
    return cases


def run_logged(cmd, logpath, timeout=None):
    """Run CMD (a list) with output to LOGPATH; returns (rc, seconds)."""
    t0 = time.time()
    with open(logpath, "ab") as lf:
        lf.write(("$ %s\n" % " ".join(shlex.quote(c) for c in cmd)).encode())
        lf.flush()
        try:
            rc = subprocess.call(cmd, stdout=lf, stderr=subprocess.STDOUT, timeout=timeout)
        except subprocess.TimeoutExpired:
            rc = 124
        except OSError as e:
            lf.write(("cannot run: %s\n" % e).encode())
            rc = 127
    return rc, time.time() - t0


def build_case(case, column, cc, args, dirs):
    """Compile the case with CC, link with bench_main; returns a build record."""
    nvcc = shlex.split(args.nvcc)
    flags = shlex.split(args.flags)
    bdir = os.path.join(dirs["build"], column)
    logp = os.path.join(dirs["logs"], "build-%s-%s.log" % (column, case["name"]))
    if os.path.exists(logp):
        os.unlink(logp)
    obj = os.path.join(bdir, case["name"] + ".o")
    exe = os.path.join(bdir, case["name"])
    rc, secs = run_logged(cc + flags + ["-c", case["path"], "-o", obj], logp)
    rec = {"compile_s": round(secs, 3), "log": os.path.relpath(logp, args.outdir), "exe": None}
    if rc != 0:
        rec["error"] = "compile failed (rc %d)" % rc
        return rec
    glue_o = os.path.join(bdir, case["name"] + ".glue.o")
    rc, _ = run_logged(nvcc + flags + ["-I", HERE, "-c", dirs["glue"][case["name"]], "-o", glue_o], logp)
    if rc == 0:
        rc, _ = run_logged(nvcc + flags + [dirs["main_o"], glue_o, obj, "-o", exe], logp)
    if rc != 0:
        rec["error"] = "glue or link failed (rc %d)" % rc
        return rec
    rec["exe"] = exe
    return rec


def build_all(cases, args, dirs, results):
    nvcc = shlex.split(args.nvcc)
    flags = shlex.split(args.flags)
    dirs["main_o"] = os.path.join(dirs["build"], "bench_main.o")
    logp = os.path.join(dirs["logs"], "build-bench_main.log")
    rc, _ = run_logged(nvcc + flags + ["-I", HERE, "-c", os.path.join(HERE, "bench_main.cu"),
                                       "-o", dirs["main_o"]], logp)
    if rc != 0:
        log("bench_main.cu does not compile; see %s" % logp)
        return False
    log("building %d cases with %s" % (len(cases), args.nvcc))
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as ex:
        futs = dict((ex.submit(build_case, c, "ref", nvcc, args, dirs), c["name"]) for c in cases)
        for f in concurrent.futures.as_completed(futs):
            results[futs[f]]["ref"]["build"] = f.result()
    if args.egg_cc:
        # one at a time: a search measures candidates on the GPU
        egg = shlex.split(args.egg_cc)
        for c in cases:
            log("building %s with %s" % (c["name"], args.egg_cc))
            rec = build_case(c, "egg", egg, args, dirs)
            if rec.get("exe"):
                rec["rebuild_s"] = rebuild_seconds(c, egg, args, dirs)
            results[c["name"]]["egg"]["build"] = rec
        if not args.no_overheads:
            dirs["fastpath"] = fastpath_seconds(egg, nvcc, flags, dirs)
    return True


def rebuild_seconds(case, egg, args, dirs):
    """The case compiled again with egg-cc: the winner (or the negative entry)
    now comes from the cache, as on every build after the first."""
    obj = os.path.join(dirs["build"], "egg", case["name"] + ".rebuild.o")
    logp = os.path.join(dirs["logs"], "rebuild-egg-%s.log" % case["name"])
    rc, secs = run_logged(egg + shlex.split(args.flags) + ["-c", case["path"], "-o", obj], logp)
    return round(secs, 3) if rc == 0 else None


def fastpath_seconds(egg, nvcc, flags, dirs):
    """bench_main.cu has no annotation: egg-cc's fast path against plain nvcc,
    median of 5 compiles each, alternating."""
    src = os.path.join(HERE, "bench_main.cu")
    obj = os.path.join(dirs["build"], "fastpath.o")
    logp = os.path.join(dirs["logs"], "fastpath.log")
    times = {"nvcc": [], "egg": []}
    for _ in range(5):
        for name, cc in (("nvcc", nvcc), ("egg", egg)):
            rc, secs = run_logged(cc + flags + ["-I", HERE, "-c", src, "-o", obj], logp)
            if rc != 0:
                return None
            times[name].append(secs)
    med = lambda v: sorted(v)[len(v) // 2]
    return {"nvcc_s": round(med(times["nvcc"]), 3), "egg_s": round(med(times["egg"]), 3), "n": 5}


def last_json(text):
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                pass
    return None


def run_binary(exe, extra, args, logname, dirs):
    cmd = [exe] + extra
    logp = os.path.join(dirs["logs"], logname)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=args.case_timeout)
        out, rc = p.stdout.decode(errors="replace"), p.returncode
    except subprocess.TimeoutExpired:
        out, rc = "timed out after %g s\n" % args.case_timeout, 124
    with open(logp, "w") as f:
        f.write("$ %s\n%s" % (" ".join(cmd), out))
    rec = last_json(out) or {}
    if rc != 0:
        rec.setdefault("error", "exit status %d" % rc)
    return rec


def measure_ceilings(results, args, dirs, tref):
    exe = next((r["ref"]["build"].get("exe") for r in results.values() if r["ref"]["build"].get("exe")), None)
    ceil = dict(NOMINAL)
    if exe:
        m = run_binary(exe, ["--ceilings"], args, "ceilings.log", dirs)
        if "copy_bytes_per_s" in m:
            ceil = dict(m, measured=True)
        else:
            log("ceilings not measured (%s); using nominal H200 numbers" % m.get("error"))
    if tref:
        try:
            ceil["cublas_sgemm_flops_per_s"] = tref.sgemm_rate()
            ceil["torch"] = tref.torch.__version__
        except Exception as e:  # a failed ceiling must not lose the suite
            log("sgemm rate not measured: %s" % e)
    return ceil


def run_column(case, column, res, args, dirs, tref):
    exe = res["build"].get("exe")
    if not exe:
        return
    dump = os.path.join(dirs["dumps"], column, case["name"])
    os.makedirs(dump, exist_ok=True)
    m = run_binary(exe, ["--dump", dump, "--budget-ms", str(args.budget_ms), "--flush", args.flush], args,
                   "run-%s-%s.log" % (column, case["name"]), dirs)
    res["run"] = m
    if tref and "error" not in m:
        try:
            res["check"] = tref.check(case["name"], dump, case["tolerance"]["rtol"], case["tolerance"]["atol"])
        except Exception as e:
            res["check"] = {"correct": None, "why": "check failed: %s" % e}
    elif "error" in m:
        res["check"] = {"correct": False, "why": m["error"]}
    else:
        res["check"] = {"correct": None, "why": "torch not available; only completeness checked",
                        "written": m.get("written")}
    if not args.keep_dumps:
        shutil.rmtree(dump, ignore_errors=True)


def torch_column(case, tref, args):
    ev = case["evaluated"][0]
    bufs = [{"name": b["name"], "dtype": report.TORCH_DTYPE[casefile.DTYPES[b["base"]]],
             "role": case["roles"][b["name"]], "count": ev["extents"][b["name"]],
             "range": [ev["lo"][b["name"]], ev["hi"][b["name"]]]} for b in case["buffers"]]
    try:
        return tref.time_case(case["name"], bufs, ev["scalars"], budget_ms=args.budget_ms, flush_mode=args.flush)
    except Exception as e:
        return {"ms": None, "why": "torch failed: %s" % e}


def git_commit():
    try:
        out = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=10)
        return out.stdout.decode().strip() or None
    except (OSError, subprocess.TimeoutExpired):
        return None


def main(argv):
    args = parse_args(argv)
    try:
        cases = select_cases(args.cases, args.cases_dir)
    except casefile.CaseError as e:
        log(str(e))
        return 1
    except OSError as e:
        log("cannot read the cases: %s" % e)
        return 1
    if not cases:
        log("no case matches %r" % args.cases)
        return 1
    os.makedirs(args.outdir, exist_ok=True)
    work = args.work or default_work()
    dirs = {"build": os.path.join(work, "build"), "dumps": os.path.join(work, "dumps"),
            "logs": os.path.join(args.outdir, "logs")}
    for k in ("build", "logs"):
        os.makedirs(dirs[k], exist_ok=True)
    try:
        return run_suite(args, cases, dirs)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


def default_work():
    """A temporary folder; in memory (/dev/shm) when it has room for the dumps."""
    base = None
    try:
        st = os.statvfs("/dev/shm")
        if st.f_bavail * st.f_frsize > 16e9 and os.access("/dev/shm", os.W_OK):
            base = "/dev/shm"
    except OSError:
        pass
    return tempfile.mkdtemp(prefix="egg-bench-", dir=base)


def run_suite(args, cases, dirs):
    for col in ("ref", "egg"):
        os.makedirs(os.path.join(dirs["build"], col), exist_ok=True)
    dirs["glue"] = {}
    for c in cases:
        g = os.path.join(dirs["build"], c["name"] + ".glue.cu")
        with open(g, "w") as f:
            f.write(casefile.glue_source(c))
        dirs["glue"][c["name"]] = g
    results = dict((c["name"], {"case": c["name"], "family": c["family"], "bytes": c["evaluated"][0]["bytes"],
                                "flops": c["evaluated"][0]["flops"], "tolerance": c["tolerance"],
                                "ref": {"build": {}}, "egg": {"build": {}}, "torch": {}}) for c in cases)
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": args.commit or git_commit() or "unknown", "flags": args.flags,
            "nvcc": args.nvcc, "egg_cc": args.egg_cc, "cases": len(cases), "flush": args.flush}
    if outside_suite(args):
        meta["cases_dir"] = args.cases_dir
    ok = True
    if not args.no_build:
        ok = build_all(cases, args, dirs, results)
    ceil = dict(NOMINAL)
    if ok and not args.no_gpu:
        tref = None
        try:
            import torch_ref
            tref = torch_ref if torch_ref.load_torch() else None
            if tref and outside_suite(args):
                tref.add_refs(args.cases_dir)
        except Exception as e:
            log("torch_ref unavailable: %s" % e)
        if not tref:
            log("torch with CUDA not importable: no torch column, correctness is completeness only")
        ceil = measure_ceilings(results, args, dirs, tref)
        meta["gpu"] = ceil.get("gpu")
        for c in cases:
            r = results[c["name"]]
            t0 = time.time()
            run_column(c, "ref", r["ref"], args, dirs, tref)
            if args.egg_cc:
                run_column(c, "egg", r["egg"], args, dirs, tref)
            if tref:
                r["torch"] = torch_column(c, tref, args)
            log("%s: done in %.1f s" % (c["name"], time.time() - t0))
            # what is measured so far survives a run cut short
            with open(os.path.join(args.outdir, "results.partial.json"), "w") as f:
                json.dump({"meta": meta, "ceilings": ceil, "cases": [results[x["name"]] for x in cases]}, f, indent=1)
    meta["ceilings"] = ceil
    if dirs.get("fastpath"):
        meta["fastpath"] = dirs["fastpath"]
    report.write_all(args.outdir, meta, [results[c["name"]] for c in cases], measured=not args.no_gpu)
    failed_builds = [n for n, r in results.items() if not args.no_build and not r["ref"]["build"].get("exe")]
    if failed_builds:
        log("reference build failed for: %s" % ", ".join(failed_builds))
    return 0 if ok and not failed_builds else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
