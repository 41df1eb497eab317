"""casefile.py -- read a benchmark case (one .cu file with one `#pragma egg optimize`
host launcher), check its annotation lexically, evaluate its workloads, and write the
per-case glue table (bench_case.h) that bench_main.cu runs.

The check is deliberately simple and independent of egg's analyzer: every pointer
parameter has exactly one role (in/out/inout/temp) with an extent, every scalar has a
value in every workload, clause names and range() targets are known, extents and the
flops formula evaluate to non-negative numbers.  Extents are evaluated here with exact
integers (C division truncates, as in Python's // for the non-negative sizes used), so
the glue carries plain numbers and bench_main needs no expression evaluator.

Metadata lives in comments at the top of the case: `// egg-bench: KEY = VALUE`
(family, flops).  Element types may be named through a typedef or `using` alias of
the file (`typedef __nv_bfloat16 floatX;`): the alias is resolved for the check,
and the glue declares the launcher with the resolved types.  Python 3 stdlib only.
"""
import re

CLAUSES = ("in", "out", "inout", "temp", "workload", "range", "tolerance", "precision", "launch")
ROLES = ("in", "out", "inout", "temp")
DTYPES = {
    "float": "BT_F32", "double": "BT_F64", "int": "BT_I32", "int32_t": "BT_I32",
    "long long": "BT_I64", "int64_t": "BT_I64", "long": "BT_I64", "unsigned": "BT_U32",
    "unsigned int": "BT_U32", "uint32_t": "BT_U32", "uint64_t": "BT_U64",
    "unsigned long long": "BT_U64", "size_t": "BT_U64", "int8_t": "BT_I8",
    "signed char": "BT_I8", "uint8_t": "BT_U8", "unsigned char": "BT_U8",
    "__nv_bfloat16": "BT_BF16", "nv_bfloat16": "BT_BF16",
}
REAL = ("BT_F32", "BT_F64", "BT_BF16")
INTEGRAL = {"BT_I32", "BT_I64", "BT_U32", "BT_U64", "BT_I8", "BT_U8"}
QUALIFIERS = ("const", "__restrict__", "__restrict", "restrict", "volatile")
DEFAULT_TOL = {"rtol": 1e-5, "atol": 1e-6}


class CaseError(Exception):
    """A case file that does not follow the annotation grammar (message names the file)."""


def split_top(text, sep=","):
    """Split TEXT at SEP outside parentheses and brackets."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return [s.strip() for s in out]


def parse_clauses(text, where):
    """[(name, argtext)] from 'in(a[n]) out(b[n]) workload(n = 4)'."""
    out, i = [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        m = re.compile(r"([A-Za-z_]\w*)\s*\(").match(text, i)
        if not m:
            raise CaseError("%s: cannot parse clause at '%s'" % (where, text[i:i + 30]))
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        if depth:
            raise CaseError("%s: unbalanced parentheses in clause %s" % (where, m.group(1)))
        out.append((m.group(1), text[m.end():j - 1].strip()))
        i = j
    return out


def type_aliases(text):
    """{alias: type} from the file's `typedef TYPE NAME;` and `using NAME = TYPE;` lines."""
    out = {}
    for m in re.finditer(r"^\s*typedef\s+([A-Za-z_][\w\s]*?)\s+([A-Za-z_]\w*)\s*;", text, re.M):
        out[m.group(2)] = " ".join(m.group(1).split())
    for m in re.finditer(r"^\s*using\s+([A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w\s]*?)\s*;", text, re.M):
        out[m.group(1)] = " ".join(m.group(2).split())
    return out


def resolve_type(base, aliases):
    """BASE with aliases replaced (an alias of an alias too), or BASE itself."""
    for _ in range(8):
        if base in DTYPES or base not in aliases:
            break
        base = aliases[base]
    return base


def resolve_signature(sig, aliases):
    """The launcher's signature on one line, the file's type aliases resolved."""
    for a in sorted(aliases, key=len, reverse=True):
        if resolve_type(a, aliases) in DTYPES:
            sig = re.sub(r"\b%s\b" % re.escape(a), resolve_type(a, aliases), sig)
    return re.sub(r"\s+", " ", sig)


def parse_param(text, where, aliases=None):
    """'const float *__restrict__ x' -> dict(name, ctype, pointer, base); ctype has
    the file's type aliases resolved (the glue does not see the file's typedefs)."""
    m = re.match(r"^(.*?)([A-Za-z_]\w*)\s*(\[\s*\])?$", text.strip())
    if not m:
        raise CaseError("%s: cannot parse parameter '%s'" % (where, text))
    ctype, name = m.group(1).strip(), m.group(2)
    pointer = "*" in ctype or m.group(3) is not None
    if m.group(3):
        ctype += " *"
    words = [w for w in re.split(r"[\s*]+", ctype) if w and w not in QUALIFIERS]
    base = " ".join(words)
    if aliases and base not in DTYPES and base in aliases:
        resolved = resolve_type(base, aliases)
        ctype = re.sub(r"\b%s\b" % re.escape(base), resolved, ctype)
        base = resolved
    if base not in DTYPES:
        raise CaseError("%s: parameter '%s' has unsupported type '%s'" % (where, name, ctype))
    return {"name": name, "ctype": ctype, "pointer": pointer, "base": base}


def c_expr_to_py(expr):
    """A C arithmetic expression over sizes, for Python's eval: / truncates, no suffixes."""
    e = re.sub(r"(\d+\.?\d*(?:[eE][-+]?\d+)?)[fFlLuU]+\b", r"\1", expr)
    e = re.sub(r"(?<![/])/(?![/])", "//", e)
    if re.search(r"[^\w\s+\-*/%().<>]", e):
        raise ValueError("unsupported characters in '%s'" % expr)
    return e


def evaluate(expr, values, where, real=False):
    names = set(re.findall(r"\b[A-Za-z_]\w*\b", re.sub(r"\d+\.?\d*[eE][-+]?\d+[fF]?", "", expr)))
    unknown = sorted(names - set(values))
    if unknown:
        raise CaseError("%s: '%s' names unknown %s" % (where, expr, ", ".join(unknown)))
    try:
        py = c_expr_to_py(expr)
        if real:
            py = py.replace("//", "/")
        return eval(py, {"__builtins__": {}}, dict(values))
    except (ValueError, SyntaxError, ZeroDivisionError, TypeError) as e:
        raise CaseError("%s: cannot evaluate '%s': %s" % (where, expr, e))


def parse_case(path, text=None):
    """Parse one case file into a dict; raises CaseError on any malformed part."""
    if text is None:
        with open(path) as f:
            text = f.read()
    name = re.sub(r"\.cu$", "", path.rsplit("/", 1)[-1])
    meta = dict((k.strip(), v.strip()) for k, v in
                re.findall(r"^//\s*egg-bench:\s*([\w-]+)\s*=\s*(.*?)\s*$", text, re.M))
    lines = text.split("\n")
    pragmas = [i for i, l in enumerate(lines) if re.match(r"\s*#\s*pragma\s+egg\s+optimize\b", l)]
    if len(pragmas) != 1:
        raise CaseError("%s: expected exactly one '#pragma egg optimize', found %d" % (path, len(pragmas)))
    i = pragmas[0]
    where = "%s:%d" % (path, i + 1)
    body = []
    while True:
        l = lines[i]
        if l.rstrip().endswith("\\"):
            body.append(l.rstrip()[:-1])
            i += 1
        else:
            body.append(l)
            break
    ptext = re.sub(r"^\s*#\s*pragma\s+egg\s+optimize\b", "", " ".join(body))
    rest = "\n".join(lines[i + 1:])
    m = re.match(r'\s*(?:extern\s+"C"\s+)?(?:static\s+)?(?:inline\s+)?void\s+([A-Za-z_]\w*)\s*\(([^)]*)\)\s*\{', rest)
    if not m:
        raise CaseError("%s: the pragma must stand right before a 'void NAME(...) {' host launcher" % where)
    launcher = m.group(1)
    aliases = type_aliases(text)
    params = [parse_param(p, where, aliases) for p in split_top(m.group(2))]
    pnames = [p["name"] for p in params]
    if len(set(pnames)) != len(pnames):
        raise CaseError("%s: duplicate parameter names" % where)
    case = {"name": name, "path": path, "family": meta.get("family", "unknown"),
            "flops": meta.get("flops", "0"), "launcher": launcher, "params": params,
            "extern_c": rest.lstrip().startswith('extern "C"'),
            "signature": resolve_signature(m.group(0).strip()[:-1].strip(), aliases),
            "roles": {}, "extents": {}, "workloads": [], "ranges": {}, "tolerance": dict(DEFAULT_TOL),
            "precision": None, "line": i + 1}
    byname = dict((p["name"], p) for p in params)
    for cname, args in parse_clauses(ptext, where):
        if cname not in CLAUSES:
            raise CaseError("%s: unknown clause '%s'" % (where, cname))
        if cname in ROLES:
            for item in split_top(args):
                mm = re.match(r"^([A-Za-z_]\w*)\s*\[(.+)\]$", item)
                if not mm:
                    raise CaseError("%s: %s(%s): expected NAME[EXTENT]" % (where, cname, item))
                b = mm.group(1)
                if b not in byname or not byname[b]["pointer"]:
                    raise CaseError("%s: %s(%s) does not name a pointer parameter" % (where, cname, b))
                if b in case["roles"]:
                    raise CaseError("%s: buffer '%s' has two roles" % (where, b))
                case["roles"][b] = cname
                case["extents"][b] = mm.group(2).strip()
        elif cname == "workload":
            wl = {}
            for item in split_top(args):
                mm = re.match(r"^([A-Za-z_]\w*)\s*=\s*(.+)$", item)
                if not mm or mm.group(1) not in byname or byname[mm.group(1)]["pointer"]:
                    raise CaseError("%s: workload item '%s' is not SCALAR = VALUE" % (where, item))
                wl[mm.group(1)] = mm.group(2).strip()
            case["workloads"].append(wl)
        elif cname == "range":
            parts = split_top(args)
            if len(parts) != 3 or parts[0] not in case["roles"] and parts[0] not in byname:
                raise CaseError("%s: range(%s) must be range(BUFFER, LO, HI)" % (where, args))
            case["ranges"][parts[0]] = (parts[1], parts[2])
        elif cname == "tolerance":
            for item in split_top(args):
                mm = re.match(r"^(rtol|atol)\s*=\s*([-+0-9.eE]+)[fF]?$", item)
                if not mm:
                    raise CaseError("%s: tolerance item '%s' is not rtol = R or atol = A" % (where, item))
                case["tolerance"][mm.group(1)] = float(mm.group(2))
        elif cname == "precision":
            if args not in ("tf32", "bf16", "fp16"):
                raise CaseError("%s: precision(%s) is not tf32, bf16 or fp16" % (where, args))
            case["precision"] = args
        elif cname == "launch":
            raise CaseError("%s: launch() is for __global__ targets; cases are host launchers" % where)
    for p in params:
        if p["pointer"] and p["name"] not in case["roles"]:
            raise CaseError("%s: pointer parameter '%s' has no in/out/inout/temp extent" % (where, p["name"]))
    for b in case["ranges"]:
        if b not in case["roles"] or case["roles"][b] not in ("in", "inout"):
            raise CaseError("%s: range(%s) names no input buffer" % (where, b))
    if not case["workloads"]:
        raise CaseError("%s: no workload(...) clause" % where)
    if not any(r in ("out", "inout") for r in case["roles"].values()):
        raise CaseError("%s: no out or inout buffer to compare" % where)
    case["buffers"] = [p for p in params if p["pointer"]]
    case["scalars"] = [p for p in params if not p["pointer"]]
    case["evaluated"] = [evaluate_workload(case, k) for k in range(len(case["workloads"]))]
    return case


def evaluate_workload(case, k):
    """Scalars, extents, ranges, bytes and flops of workload K, as numbers."""
    wl = case["workloads"][k]
    where = "%s: workload %d" % (case["path"], k + 1)
    vals = {}
    for s in case["scalars"]:
        if s["name"] not in wl:
            raise CaseError("%s: scalar '%s' has no value" % (where, s["name"]))
        real = DTYPES[s["base"]] in REAL
        vals[s["name"]] = evaluate(wl[s["name"]], vals, where, real=real)
        if not real:
            vals[s["name"]] = int(vals[s["name"]])
    ext, lo, hi = {}, {}, {}
    nbytes = 0
    for b in case["buffers"]:
        n = evaluate(case["extents"][b["name"]], vals, where)
        if not isinstance(n, int) or n < 0:
            raise CaseError("%s: extent of '%s' is %r, not a non-negative integer" % (where, b["name"], n))
        ext[b["name"]] = n
        dt = DTYPES[b["base"]]
        if b["name"] in case["ranges"]:
            r = case["ranges"][b["name"]]
            lo[b["name"]] = evaluate(r[0], vals, where, real=True)
            hi[b["name"]] = evaluate(r[1], vals, where, real=True)
            if not hi[b["name"]] > lo[b["name"]]:
                raise CaseError("%s: empty range for '%s'" % (where, b["name"]))
        elif dt in INTEGRAL:
            lo[b["name"]], hi[b["name"]] = 0.0, 100.0
        else:
            lo[b["name"]], hi[b["name"]] = -1.0, 1.0
        role = case["roles"][b["name"]]
        nbytes += n * dtype_bytes(dt) * {"in": 1, "out": 1, "inout": 2, "temp": 0}[role]
    flops = float(evaluate(case["flops"], vals, where, real=True))
    if flops < 0:
        raise CaseError("%s: negative flops" % where)
    return {"scalars": vals, "extents": ext, "lo": lo, "hi": hi, "bytes": nbytes, "flops": flops}


def dtype_bytes(dt):
    return {"BT_F64": 8, "BT_I64": 8, "BT_U64": 8, "BT_I8": 1, "BT_U8": 1, "BT_BF16": 2}.get(dt, 4)


def glue_source(case):
    """The C++ glue: launcher prototype, call thunk, and the numbers of every workload."""
    bufs, scal = case["buffers"], case["scalars"]
    o = ["// generated by bench/suite/casefile.py from %s; do not edit" % case["path"],
         '#include <stddef.h>', '#include <stdint.h>', '#include "bench_case.h"']
    if any(DTYPES[p["base"]] == "BT_BF16" for p in case["params"]):
        o.append("#include <cuda_bf16.h>")
    o += ["", ('extern "C" ' if case["extern_c"] else "") + case["signature"] + ";", "",
         "static void call(void *const *b, const double *s)", "{", "\t(void)b; (void)s;"]
    args, bi, si = [], 0, 0
    for p in case["params"]:
        if p["pointer"]:
            args.append("(%s)b[%d]" % (p["ctype"], bi))
            bi += 1
        else:
            args.append("(%s)s[%d]" % (p["ctype"], si))
            si += 1
    o += ["\t%s(%s);" % (case["launcher"], ", ".join(args)), "}", ""]
    o.append("static const struct bench_buffer bufs[] = {%s};" % ", ".join(
        '{"%s", %s, BR_%s}' % (b["name"], DTYPES[b["base"]], case["roles"][b["name"]].upper()) for b in bufs))
    o.append("static const char *const scalar_names[] = {%s};" % ", ".join(
        ['"%s"' % s["name"] for s in scal] or ['""']))
    for k, ev in enumerate(case["evaluated"]):
        o.append("static const double s%d[] = {%s};" % (k, ", ".join(
            ["%.17g" % ev["scalars"][s["name"]] for s in scal] or ["0"])))
        o.append("static const long long e%d[] = {%s};" % (k, ", ".join(
            "%dLL" % ev["extents"][b["name"]] for b in bufs)))
        o.append("static const double lo%d[] = {%s};" % (k, ", ".join("%.17g" % ev["lo"][b["name"]] for b in bufs)))
        o.append("static const double hi%d[] = {%s};" % (k, ", ".join("%.17g" % ev["hi"][b["name"]] for b in bufs)))
    o.append("static const struct bench_workload work[] = {%s};" % ", ".join(
        "{s%d, e%d, lo%d, hi%d, %.17g, %.17g}" % (k, k, k, k, ev["bytes"], ev["flops"])
        for k, ev in enumerate(case["evaluated"])))
    o += ["", "const struct bench_case bench_this_case = {",
          '\t"%s", "%s", %d, bufs, %d, scalar_names, %d, work, call' % (
              case["name"], case["family"], len(bufs), len(scal), len(case["evaluated"])),
          "};", ""]
    return "\n".join(o)


def manifest_info(case):
    """What the suite's report needs from a case without running it."""
    ev = case["evaluated"][0]
    return {"case": case["name"], "family": case["family"], "bytes": ev["bytes"], "flops": ev["flops"],
            "tolerance": case["tolerance"], "precision": case["precision"],
            "workloads": len(case["evaluated"]), "scalars": ev["scalars"]}


if __name__ == "__main__":
    import sys
    import json
    rc = 0
    for p in sys.argv[1:]:
        try:
            print(json.dumps(manifest_info(parse_case(p))))
        except CaseError as e:
            print("casefile: %s" % e, file=sys.stderr)
            rc = 1
    sys.exit(rc)
