#!/usr/bin/env python3
# prepare.py -- a check program made ready for the CPU stand-in, in one process
# (emu-check.sh runs it once a program): its launches rewritten (launches.py),
# its timing loops run no round (timings are meaningless on the CPU), and the
# result split into a body and the sizes, so that emu-check.sh compiles the body
# once for every size a test runs it at.  A check program's main starts with its
# scalars, one a line (the values the tests' sed commands replace):
#     int main(void)
#     {
#     	int rows = (16384);
#     	float eps = (1e-5f);
# The body declares each `extern T egg_size_NAME;` before main and starts main
# with `T NAME = egg_size_NAME;`; the sizes file defines them with the values as
# written.  Nothing else changes: the same statements run with the same values.
#
#   prepare.py PROGRAM.cu OUT
#
# writes OUT.cc (the whole program), and OUT.body.cc and OUT.sizes.cc when its
# main starts with scalars (exit status 0 either way; 1 if it cannot be read).
import os
import re
import sys

sys.dont_write_bytecode = True  # (no __pycache__ in the source tree)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import launches  # noqa: E402

SCALAR = re.compile(r"^\t((?:unsigned |signed )?(?:int|long long|long|short|char|float|double|size_t|u?int\d+_t|unsigned)) "
                    r"([A-Za-z_]\w*) = (\(.*\));$")
TIMING = re.compile(r"egg_k < (3|20); egg_k\+\+\) ")


def split(src):
    """(body, sizes), or None when main does not start with scalars."""
    lines = src.split("\n")
    try:
        at = lines.index("int main(void)")
    except ValueError:
        return None
    if at + 1 >= len(lines) or lines[at + 1] != "{":
        return None
    found, i = [], at + 2
    while i < len(lines) and SCALAR.match(lines[i]):
        m = SCALAR.match(lines[i])
        found.append((i, m.group(1), m.group(2), m.group(3)))
        i += 1
    if not found:
        return None
    for i, ty, name, _ in found:
        lines[i] = "\t%s %s = egg_size_%s;" % (ty, name, name)
    decls = ["extern %s egg_size_%s;" % (ty, name) for _, ty, name, _ in found]
    body = "\n".join(lines[:at] + decls + lines[at:])
    sizes = "#include <cstddef>\n#include <cstdint>\n" + "".join("%s egg_size_%s = %s;\n" % (ty, name, value)
                                             for _, ty, name, value in found)
    return body, sizes


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: prepare.py PROGRAM.cu OUT")
    prog = TIMING.sub("egg_k < 0; egg_k++) ", launches.rewrite(open(sys.argv[1]).read()))
    out = sys.argv[2]
    open(out + ".cc", "w").write(prog)
    parts = split(prog)
    for suffix in (".body.cc", ".sizes.cc"):
        if os.path.exists(out + suffix):
            os.unlink(out + suffix)
    if parts:
        open(out + ".body.cc", "w").write(parts[0])
        open(out + ".sizes.cc", "w").write(parts[1])
