"""torch_ref.py -- the PyTorch eager side of the benchmark suite.

For every case in cases/ this file holds the equivalent PyTorch eager computation
(REF below, keyed by the case's file name, written against flat buffers named as the
launcher's parameters); a batch of cases in another folder (run.sh --cases-dir) brings
its own in that folder's torch_refs.py (add_refs).  It serves twice:

* correctness: bench_main dumps each workload's inputs (as they were before the call)
  and outputs; check() recomputes the outputs in float64 on the GPU from those exact
  inputs (integer buffers stay integer) and compares element by element with the
  case's tolerance, |got - ref| <= atol + rtol * |ref|; integer outputs must be equal;
  NaN never passes.  Also reported: max abs error and ||got - ref|| / ||ref||.
* speed: time_case() runs the same function in fp32 on fresh random inputs of the
  first workload's sizes (ranges honoured), timed like bench_main: three warm-ups,
  then per repetition an L2 flush (writing 256 MiB), CUDA events around the call and a
  synchronize; median of N, N adapted to a time budget.

TF32 is off for fp32 matmuls (torch.backends.cuda.matmul.allow_tf32 = False).
Without torch (stdlib only), `python3 torch_ref.py --list` still prints the case
names REF covers, so CPU tests can check that every case has a PyTorch equivalent.
"""
import json
import os
import sys
import time

torch = None
F = None
# "cpu" only for CPU tests of this file's logic (timing then uses a host clock)
DEVICE = os.environ.get("BENCH_TORCH_DEVICE", "cuda")


def load_torch():
    """Import torch lazily; returns False (and stays usable for --list) without it or a GPU."""
    global torch, F
    if torch is not None:
        return True
    try:
        import torch as _t
        import torch.nn.functional as _f
    except ImportError:
        return False
    if DEVICE == "cuda" and not _t.cuda.is_available():
        return False
    torch, F = _t, _f
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return True


class _HostEvent:
    """torch.cuda.Event's timing interface on the host clock (BENCH_TORCH_DEVICE=cpu)."""

    def record(self):
        self.t = time.perf_counter()

    def elapsed_time(self, other):
        return (other.t - self.t) * 1e3


def _event():
    return torch.cuda.Event(enable_timing=True) if DEVICE == "cuda" else _HostEvent()


def _sync():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def _empty_cache():
    if DEVICE == "cuda":
        torch.cuda.empty_cache()


def _i(s, k):
    return int(s[k])


def _rms_add(t, s):
    hid = _i(s, "hidden")
    h = t["x"] + t["res"]
    h2 = h.view(-1, hid)
    if h.dtype == torch.float32 and hasattr(F, "rms_norm"):
        y = F.rms_norm(h2, (hid,), t["weight"], float(s["eps"]))
    else:
        y = h2 * torch.rsqrt(h2.pow(2).mean(-1, keepdim=True) + float(s["eps"])) * t["weight"]
    return {"h": h, "y": y}


def _stencil(t, s):
    u = t["u"].view(_i(s, "height"), _i(s, "width"))
    c, d = float(s["center"]), float(s["side"])
    v = u.clone()
    v[1:-1, 1:-1] = c * u[1:-1, 1:-1] + d * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return {"v": v}


def _bincount(t, s):
    keys = t["keys"]
    try:
        b = torch.bincount(keys, minlength=_i(s, "nbins"))
    except RuntimeError:
        b = torch.bincount(keys.long(), minlength=_i(s, "nbins"))
    return {"bins": b}


def _weighted_bincount(t, s):
    b = torch.bincount(t["bin"].long(), weights=t["w"].double(), minlength=_i(s, "nbins"))
    return {"hist": b.to(t["w"].dtype)}


def _embed_positions(t, s):
    dim, seq = _i(s, "dim"), _i(s, "seq")
    tok = t["tok"].long()
    pos = torch.arange(tok.numel(), device=tok.device) % seq
    return {"h": F.embedding(tok, t["wte"].view(-1, dim)) + F.embedding(pos, t["wpe"].view(seq, dim))}


def _collatz(t, s):
    v = t["start"].long()
    steps = torch.zeros_like(v)
    active = v != 1
    while bool(active.any()):
        nxt = torch.where((v & 1) == 1, 3 * v + 1, v >> 1)
        v = torch.where(active, nxt, v)
        steps += active
        active = v != 1
    return {"steps": steps}


def _reverse_cumsum(t, s):
    x = t["x"].view(_i(s, "rows"), _i(s, "cols"))
    return {"out": torch.flip(torch.cumsum(torch.flip(x, [1]), 1), [1])}


def _instance_norm(t, s):
    x = t["x"].view(_i(s, "planes"), _i(s, "hw"))
    m = x.mean(1, keepdim=True)
    v = ((x - m) ** 2).mean(1, keepdim=True)
    return {"y": (x - m) / torch.sqrt(v + 1e-5)}


REF = {
    "relu": lambda t, s: {"y": torch.relu(t["x"])},
    "gelu_tanh": lambda t, s: {"out": F.gelu(t["in"], approximate="tanh")},
    "silu": lambda t, s: {"y": F.silu(t["x"])},
    "bias_gelu": lambda t, s: {"out": F.gelu(t["x"].view(-1, _i(s, "hidden")) + t["bias"])},
    "scale_residual_relu": lambda t, s: {"y": torch.relu(float(s["alpha"]) * t["x"] + t["residual"])},
    "swiglu": lambda t, s: {"out": F.silu(t["gate"]) * t["up"]},
    "row_sum": lambda t, s: {"out": t["x"].view(_i(s, "rows"), _i(s, "cols")).sum(1)},
    "row_max": lambda t, s: {"output": t["input"].view(_i(s, "rows"), _i(s, "cols")).amax(1)},
    "row_mean": lambda t, s: {"mean": t["x"].view(_i(s, "rows"), _i(s, "cols")).mean(1)},
    "mid_sum": lambda t, s: {"y": t["x"].view(_i(s, "batch"), _i(s, "dim"), _i(s, "inner")).sum(1)},
    "sum_squares": lambda t, s: {"result": torch.sum(t["x"] * t["x"]).reshape(1)},
    "softmax": lambda t, s: {"probs": torch.softmax(t["logits"].view(-1, _i(s, "classes")), 1)},
    "log_softmax": lambda t, s: {"y": torch.log_softmax(t["x"].view(-1, _i(s, "cols")), 1)},
    "layer_norm": lambda t, s: {"y": F.layer_norm(t["x"].view(-1, _i(s, "cols")), (_i(s, "cols"),),
                                                  t["gamma"], t["beta"], float(s["eps"]))},
    "rms_norm_residual": _rms_add,
    "softmax_gpt2_vocab": lambda t, s: {"probs": torch.softmax(t["logits"].view(-1, _i(s, "vocab")), 1)},
    "log_softmax_vocab": lambda t, s: {"y": torch.log_softmax(t["x"].view(-1, _i(s, "vocab")), 1)},
    "layer_norm_odd": lambda t, s: {"y": F.layer_norm(t["x"].view(-1, _i(s, "cols")), (_i(s, "cols"),),
                                                      t["weight"], t["bias"], float(s["eps"]))},
    "matmul": lambda t, s: {"C": torch.mm(t["A"].view(_i(s, "M"), _i(s, "K")),
                                          t["B"].view(_i(s, "K"), _i(s, "N")))},
    "linear_relu": lambda t, s: {"output": torch.relu(F.linear(
        t["input"].view(_i(s, "batch"), _i(s, "in_features")),
        t["weight"].view(_i(s, "out_features"), _i(s, "in_features")), t["bias"]))},
    "bmm": lambda t, s: {"c": torch.bmm(t["a"].view(_i(s, "batch"), _i(s, "m"), _i(s, "k")),
                                        t["b"].view(_i(s, "batch"), _i(s, "k"), _i(s, "n")))},
    "transpose": lambda t, s: {"out": t["in"].view(_i(s, "rows"), _i(s, "cols")).t().contiguous()},
    "embedding": lambda t, s: {"out": F.embedding(t["ids"], t["table"].view(_i(s, "vocab"), _i(s, "dim")))},
    "stencil5": _stencil,
    "batchnorm_infer": lambda t, s: {"y": F.batch_norm(
        t["x"].view(_i(s, "n"), _i(s, "c"), _i(s, "hw")), t["mean"], t["var"], t["gamma"], t["beta"],
        training=False, eps=float(s["eps"]))},
    "row_cumsum": lambda t, s: {"y": torch.cumsum(t["x"].view(_i(s, "rows"), _i(s, "cols")), 1)},
    "histogram": _bincount,
    "collatz": _collatz,
    "col_sum": lambda t, s: {"sums": t["m"].view(_i(s, "rows"), _i(s, "cols")).sum(0)},
    "weighted_hist": _weighted_bincount,
    "l2_normalize": lambda t, s: {"y": F.normalize(t["x"].view(_i(s, "rows"), _i(s, "dim")), dim=1,
                                                   eps=float(s["eps"]))},
    "row_cummax": lambda t, s: {"y": torch.cummax(t["x"].view(_i(s, "rows"), _i(s, "cols")), 1).values},
    "layer_scale_residual": lambda t, s: {"y": t["x"].view(-1, _i(s, "dim")) +
                                          t["gamma"] * t["z"].view(-1, _i(s, "dim"))},
    "embed_positions": _embed_positions,
    "bitonic_segments": lambda t, s: {"sorted": torch.sort(t["keys"].view(-1, _i(s, "seg")), dim=1).values},
    # the sixteen cases added on 2026-12-01 (second batch, README)
    "matvec": lambda t, s: {"y": t["A"].view(_i(s, "M"), _i(s, "K")) @ t["x"]},
    "diag_matmul": lambda t, s: {"C": t["a"].view(-1, 1) * t["B"].view(_i(s, "N"), _i(s, "M"))},
    "matmul_transposed_a": lambda t, s: {"C": torch.mm(t["A"].view(_i(s, "K"), _i(s, "M")).t(),
                                                       t["B"].view(_i(s, "K"), _i(s, "N")))},
    "avg_pool1d": lambda t, s: {"out": F.avg_pool1d(t["in"].view(_i(s, "rows"), 1, _i(s, "length")), 4)},
    "max_pool2d": lambda t, s: {"output": F.max_pool2d(
        t["input"].view(_i(s, "planes"), 1, _i(s, "H"), _i(s, "W")), 2)},
    "argmax_dim": lambda t, s: {"out": torch.argmax(t["x"].view(_i(s, "rows"), _i(s, "cols")), 1)},
    "cumprod": lambda t, s: {"y": torch.cumprod(t["x"].view(_i(s, "rows"), _i(s, "cols")), 1)},
    "reverse_cumsum": _reverse_cumsum,
    "mse_loss": lambda t, s: {"out": F.mse_loss(t["a"], t["b"]).reshape(1)},
    "cross_entropy": lambda t, s: {"out": F.cross_entropy(t["logits"].view(_i(s, "batch"), _i(s, "classes")),
                                                          t["targets"].long()).reshape(1)},
    "cosine_similarity": lambda t, s: {"out": F.cosine_similarity(
        t["a"].view(_i(s, "rows"), _i(s, "dim")), t["b"].view(_i(s, "rows"), _i(s, "dim")), dim=1, eps=1e-8)},
    "hardsigmoid_softplus": lambda t, s: {"out": F.softplus(F.hardsigmoid(t["x"]))},
    "instance_norm": _instance_norm,
    "frobenius_norm": lambda t, s: {"out": t["x"] / torch.linalg.vector_norm(t["x"])},
    "conv1d": lambda t, s: {"output": F.conv1d(t["input"].view(_i(s, "batch"), _i(s, "in_ch"), _i(s, "L")),
                                               t["weight"].view(_i(s, "out_ch"), _i(s, "in_ch"), 3))},
    "elu_scale_add": lambda t, s: {"out": F.elu(t["x"]) * float(s["s"]) + t["residual"]},
}

DTYPE_NAMES = ("float32", "float64", "int32", "int64", "uint8", "int8", "bfloat16")


def _dtype(name):
    return getattr(torch, name)


def _is_float(name):
    return name.startswith("float") or name == "bfloat16"


def add_refs(cases_dir):
    """Add the PyTorch equivalents of a batch of cases kept outside cases/: CASES_DIR's
    torch_refs.py defines refs(torch, F) returning {case: fn(t, s)} as REF holds them.
    A name REF already has is refused (a batch must not change the suite's checks).
    Returns the names added; none when the folder has no torch_refs.py."""
    path = os.path.join(cases_dir, "torch_refs.py")
    if not os.path.exists(path):
        return []
    import importlib.util
    spec = importlib.util.spec_from_file_location("torch_refs_%d" % len(REF), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    extra = mod.refs(torch, F)
    clash = sorted(set(extra) & set(REF))
    if clash:
        raise ValueError("%s: names the suite's cases already use: %s" % (path, ", ".join(clash)))
    REF.update(extra)
    return sorted(extra)


def _load(path, dtype, count):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    t = torch.frombuffer(data, dtype=_dtype(dtype)) if data else torch.empty(0, dtype=_dtype(dtype))
    if t.numel() != count:
        raise ValueError("%s holds %d elements, expected %d" % (path, t.numel(), count))
    return t.to(DEVICE)


def compare(got, ref, rtol, atol):
    """Element-wise verdict of GOT against the float64/integer REF (both flat, on the GPU)."""
    res = {"elements": got.numel()}
    if got.numel() != ref.numel():
        res.update(ok=False, why="%d elements, reference has %d" % (got.numel(), ref.numel()))
        return res
    if not got.is_floating_point() and not ref.is_floating_point():
        bad = int((got.long() != ref.long()).sum())
        res.update(ok=bad == 0, bad=bad, max_abs_err=float((got.long() - ref.long()).abs().max()) if got.numel() else 0.0,
                   rel_l2=0.0 if bad == 0 else None)
        return res
    g, r = got.double(), ref.double()
    err = (g - r).abs()
    within = err <= atol + rtol * r.abs()
    bad = int((~within).sum())
    nref = float(r.norm())
    finite = bool(torch.isfinite(err).all())
    res.update(ok=bad == 0, bad=bad, max_abs_err=float(err.max()) if err.numel() and finite else None,
               rel_l2=(float((g - r).norm()) / nref if nref > 0 else float((g - r).norm())) if finite else None)
    if bad:
        i = int((~within).nonzero()[0])
        res["first_bad"] = {"index": i, "got": float(g[i]), "ref": float(r[i])}
    return res


def check(case, dump_dir, rtol, atol):
    """Compare a bench_main dump with PyTorch in float64; returns a JSON-able verdict."""
    with open(os.path.join(dump_dir, "manifest.json")) as f:
        man = json.load(f)
    fn = REF.get(case)
    if fn is None:
        return {"correct": None, "why": "no PyTorch equivalent for %s" % case}
    verdict = {"correct": True, "workloads": []}
    checked = 0
    for w in man["workloads"]:
        wv = {"index": w["index"], "buffers": {}}
        verdict["workloads"].append(wv)
        unwritten = sum(b["unwritten"] for b in w["buffers"])
        if unwritten:
            wv["why"] = "%d output elements never written" % unwritten
            verdict["correct"] = False
        if not w["dumped"]:
            wv["skipped"] = "too large to dump"
            continue
        inputs = {}
        for b in w["buffers"]:
            if b["role"] in ("in", "inout"):
                p = os.path.join(dump_dir, "w%d.%s.in.bin" % (w["index"], b["name"]))
                t = _load(p, b["dtype"], b["count"])
                inputs[b["name"]] = t.double() if _is_float(b["dtype"]) else t
        with torch.no_grad():
            ref = fn(inputs, w["scalars"])
        for b in w["buffers"]:
            if b["role"] not in ("out", "inout"):
                continue
            if b["name"] not in ref:
                wv["buffers"][b["name"]] = {"ok": False, "why": "PyTorch equivalent does not produce it"}
                verdict["correct"] = False
                continue
            got = _load(os.path.join(dump_dir, "w%d.%s.out.bin" % (w["index"], b["name"])), b["dtype"], b["count"])
            r = compare(got, ref[b["name"]].reshape(-1), rtol, atol)
            wv["buffers"][b["name"]] = r
            if not r["ok"]:
                verdict["correct"] = False
        checked += 1
        del inputs, ref
    if not checked:
        verdict["correct"] = None if verdict["correct"] else False
        verdict.setdefault("why", "no workload was dumped")
    _empty_cache()
    return verdict


def random_inputs(buffers, seed=1234):
    """Fresh fp32/integer inputs for BUFFERS (manifest-style dicts), ranges honoured."""
    g = torch.Generator(device=DEVICE)
    g.manual_seed(seed)
    t = {}
    for b in buffers:
        if b["role"] not in ("in", "inout"):
            continue
        lo, hi = b["range"]
        if _is_float(b["dtype"]):
            x = torch.rand(b["count"], generator=g, device=DEVICE, dtype=_dtype(b["dtype"]))
            t[b["name"]] = x * (hi - lo) + lo
        else:
            t[b["name"]] = torch.randint(int(lo), int(hi), (b["count"],), generator=g, device=DEVICE,
                                         dtype=_dtype(b["dtype"]))
    return t


def time_fn(fn, budget_ms=1000.0, min_reps=20, max_reps=200, flush_mode="write"):
    """Median/p10/p90 milliseconds of fn(), timed as bench_main times a launcher
    (flush_mode "read": the L2 flushed by reading 256 MiB, leaving clean lines)."""
    flush = torch.empty(64 << 20, dtype=torch.float32, device=DEVICE)  # 256 MiB
    if flush_mode == "read":
        flush.fill_(1.0)
    start, stop = _event(), _event()
    ms, reps, r = [], 3, 0
    while r < reps + 3:
        if flush_mode == "read":
            flush.sum()
        else:
            flush.fill_(float(r & 0xFF))
        start.record()
        fn()
        stop.record()
        _sync()
        e = start.elapsed_time(stop)
        if r < 3:
            if r == 2:
                reps = int(min(max_reps, max(min_reps, -(-budget_ms // max(e, 1e-3)))))
        else:
            ms.append(e)
        r += 1
    del flush
    ms.sort()

    def q(p):
        pos = p * (len(ms) - 1)
        i = int(pos)
        f = pos - i
        return ms[i] * (1 - f) + ms[i + 1] * f if i + 1 < len(ms) else ms[i]
    return {"ms": q(0.5), "p10": q(0.1), "p90": q(0.9), "reps": len(ms)}


def time_case(case, buffers, scalars, budget_ms=1000.0, min_reps=10, flush_mode="write"):
    fn = REF.get(case)
    if fn is None:
        return {"ms": None, "why": "no PyTorch equivalent"}
    t = random_inputs(buffers)
    with torch.no_grad():
        res = time_fn(lambda: fn(t, scalars), budget_ms=budget_ms, min_reps=min_reps, flush_mode=flush_mode)
    del t
    _empty_cache()
    return res


def sgemm_rate(n=8192):
    """cuBLAS fp32 (no TF32) matrix product rate in FLOP/s, the GEMM cases' practical ceiling."""
    a = torch.rand(n, n, device=DEVICE) - 0.5
    b = torch.rand(n, n, device=DEVICE) - 0.5
    with torch.no_grad():
        r = time_fn(lambda: torch.mm(a, b), budget_ms=500.0, min_reps=10, max_reps=30)
    del a, b
    _empty_cache()
    return 2.0 * n ** 3 / (r["ms"] * 1e-3)


def main(argv):
    if argv[1:2] == ["--list"]:
        # torch_ref.py --list [CASES_DIR]: the suite's names, or a batch's (torch_refs.py there)
        print("\n".join(add_refs(argv[2]) if len(argv) > 2 else sorted(REF)))
        return 0
    if len(argv) >= 4 and argv[1] == "check":
        # torch_ref.py check CASE DUMPDIR [RTOL ATOL]
        if not load_torch():
            print(json.dumps({"correct": None, "why": "torch with CUDA is not available"}))
            return 0
        rtol = float(argv[4]) if len(argv) > 4 else 1e-5
        atol = float(argv[5]) if len(argv) > 5 else 1e-6
        print(json.dumps(check(argv[2], argv[3], rtol, atol)))
        return 0
    print("usage: torch_ref.py --list [CASES_DIR] | check CASE DUMPDIR [RTOL ATOL]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
