#!/usr/bin/env python3
# launches.py -- rewrites the CUDA kernel launches of a source for the CPU
# stand-in runtime (cuda_runtime.h beside it): each
#     KERNEL<<<GRID, BLOCK[, SHMEM[, STREAM]]>>>(ARGS);
# on one line or with its arguments on several, KERNEL possibly a template instance (k<true>), becomes
#     egg_emu_launch(dim3(GRID), dim3(BLOCK), [=] { KERNEL(ARGS); }[, SHMEM]);
# and each declaration of dynamic shared memory
#     extern __shared__ [__align__(N)] TYPE NAME[];
# becomes a pointer to the launch's buffer.
# Shared by builtin/tests/emu-check.sh (whole check programs) and
# tests/suites/builtin_gemm.bash (single candidates).
#
#   launches.py FILE > OUT     (FILE - reads stdin)
import re
import sys


def split_top(s):
    """s split at the commas outside brackets."""
    out, depth, cur = [], 0, ""
    for ch in s:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def launch(m):
    cfg = split_top(m.group(2))
    shmem = ", %s" % cfg[2] if len(cfg) > 2 else ""
    return "egg_emu_launch(dim3(%s), dim3(%s), [=] { %s(%s); }%s);" % (cfg[0], cfg[1], m.group(1), m.group(3), shmem)


def dynamic_shared(m):
    return "%s *const %s = (%s *)egg_emu_dyn_shared();" % (m.group(1), m.group(2), m.group(1))


def rewrite(src):
    src = re.sub(r"extern\s+__shared__\s+(?:__align__\(\d+\)\s+)?([\w ]+?)\s+(\w+)\[\];", dynamic_shared, src)
    src = re.sub(r"([\w:]+(?:<[^<>;]*>)?)<<<(.*)>>>\((.*)\);", launch, src)
    # then the launches whose arguments go on over several lines (the
    # evaluation program's): up to the first ");" that ends a statement
    return re.sub(r"([\w:]+(?:<[^<>;]*>)?)<<<([^;\n]*)>>>\(([^;]*?)\);", launch, src)


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "-"
    sys.stdout.write(rewrite(sys.stdin.read() if path == "-" else open(path).read()))
