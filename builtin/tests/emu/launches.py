#!/usr/bin/env python3
# launches.py -- rewrites the CUDA kernel launches of a source for the CPU
# stand-in runtime (cuda_runtime.h beside it): each
#     KERNEL<<<GRID, BLOCK[, SHMEM]>>>(ARGS);
# (KERNEL possibly a template instance, k<true>; ARGS possibly over several
# lines) becomes
#     egg_emu_launch(dim3(GRID), dim3(BLOCK), [=] { KERNEL(ARGS); }[, SHMEM]);
# one on a stream, KERNEL<<<GRID, BLOCK, SHMEM, STREAM>>>(ARGS);, becomes
#     egg_emu_launch_on(STREAM, dim3(GRID), dim3(BLOCK), [=] { KERNEL(ARGS); }, SHMEM);
# and each declaration of dynamic shared memory
#     extern __shared__ [__align__(N)] TYPE NAME[];
# becomes a pointer to the launch's buffer.
# Shared by builtin/tests/emu-check.sh (whole check programs),
# tests/suites/builtin_gemm.bash (single candidates) and tests/tools/emu-nvcc
# (egg eval's programs).
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


def matching(src, i):
    """The index of the bracket closing the one at src[i] (string and character
    literals skipped), or -1."""
    depth, k = 0, i
    while k < len(src):
        ch = src[k]
        if ch in "\"'":
            k += 1
            while k < len(src) and src[k] != ch:
                k += 2 if src[k] == "\\" else 1
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return k
        k += 1
    return -1


def launch(kernel, config, args):
    cfg = split_top(config)
    body = "[=] { %s(%s); }" % (kernel, args)
    if len(cfg) > 3:  # on a stream
        return "egg_emu_launch_on(%s, dim3(%s), dim3(%s), %s, %s);" % (cfg[3], cfg[0], cfg[1], body, cfg[2])
    shmem = ", %s" % cfg[2] if len(cfg) > 2 else ""
    return "egg_emu_launch(dim3(%s), dim3(%s), %s%s);" % (cfg[0], cfg[1], body, shmem)


def dynamic_shared(m):
    return "%s *const %s = (%s *)egg_emu_dyn_shared();" % (m.group(1), m.group(2), m.group(1))


HEAD = re.compile(r"([\w:]+(?:<[^<>;]*>)?)<<<")


def rewrite(src):
    """src with every launch rewritten; a launch's arguments may span lines (their
    line breaks are kept, so later lines keep their numbers)."""
    src = re.sub(r"extern\s+__shared__\s+(?:__align__\(\d+\)\s+)?([\w ]+?)\s+(\w+)\[\];", dynamic_shared, src)
    out, pos = [], 0
    while True:
        m = HEAD.search(src, pos)
        if not m:
            break
        close = src.find(">>>", m.end())
        open_ = close + 3
        while 0 <= close and open_ < len(src) and src[open_] in " \t\n":
            open_ += 1
        end = matching(src, open_) if close >= 0 and src[open_:open_ + 1] == "(" else -1
        semi = end + 1
        while 0 <= end and semi < len(src) and src[semi] in " \t":
            semi += 1
        if end < 0 or src[semi:semi + 1] != ";":
            out.append(src[pos:m.end()])
            pos = m.end()
            continue
        out.append(src[pos:m.start()])
        out.append(launch(m.group(1), src[m.end():close], src[open_ + 1:end]))
        pos = semi + 1
    out.append(src[pos:])
    return "".join(out)


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "-"
    sys.stdout.write(rewrite(sys.stdin.read() if path == "-" else open(path).read()))
