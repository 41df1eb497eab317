#!/usr/bin/env python3
# launches.py -- rewrites the CUDA kernel launches of a source for the CPU
# stand-in runtime (cuda_runtime.h beside it): each
#     KERNEL<<<GRID, BLOCK[, SHMEM[, STREAM]]>>>(ARGS);
# on one line, KERNEL possibly a template instance (k<true>), becomes
#     egg_emu_launch(dim3(GRID), dim3(BLOCK), [=] { KERNEL(ARGS); });
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
    return "egg_emu_launch(dim3(%s), dim3(%s), [=] { %s(%s); });" % (cfg[0], cfg[1], m.group(1), m.group(3))


def rewrite(src):
    return re.sub(r"([\w:]+(?:<[^<>;]*>)?)<<<(.*)>>>\((.*)\);", launch, src)


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "-"
    sys.stdout.write(rewrite(sys.stdin.read() if path == "-" else open(path).read()))
