#!/usr/bin/env python3
"""make-fixture.py -- writes fixture.json, the scripted model server's fixture
(tests/agents/model-server.py) for a whole two-stage search of softmax_forward
(softmax.cu) whose answers are the real CUDA code in replies/*.cu:

  stage 1  seed 1: one warp per row, with a typo (a0: a compile error), which
           the debug agent repairs (a1); seed 2: one block per row, four
           elements a step, forgetting the last cols % 4 (b0: wrong on the odd
           workload), repaired (b1); seed 3: online softmax, block per row (c)
  stage 2  for each of the two structures kept: the profile agent's JSON, then
           mapping (map: the block size a tunable THREADS = 128, 256, 512),
           tiling (tile: the row in registers), memory (mem: float4 loads,
           streaming stores)

Exchanges match requests by content ("when": the role's heading, and for a
debug request the failed candidate's "variant:" line), never by whole prompts;
fallbacks at the end (with "repeat") answer any extra request (one more debug
round, say) with correct code or a plain plan, so the search still ends with a
winner.  No verdict is scripted: the real harness judges the code.

Each replies/*.cu is a whole answer as a model would give it (every kernel and
helper it needs, a repair repeating the failed code with the fix), so they
repeat each other's helpers on purpose.

Usage: make-fixture.py > fixture.json  (run.sh and the CPU suite use the
committed fixture.json; tests/suites/agents_gpu_fixture.bash checks that it is
what this script writes)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FENCE = "`" * 3
AGENTS = ["Profile agent", "Debug agent"]


def code(reply, line):
    with open(os.path.join(HERE, "replies", reply)) as f:
        src = f.read()
    return "%s\n\n%scuda\n%s%s\n" % (line, FENCE, src, FENCE)


def plan(bottleneck, modification):
    return "%sjson\n%s\n%s\n" % (FENCE, json.dumps({"bottleneck": bottleneck,
                                                    "modification_plan": modification}), FENCE)


def when(contains, lacks=()):
    return {"last_user_contains": list(contains), "last_user_lacks": list(lacks)}


def ex(name, cond, reply, repeat=1):
    e = {"name": name, "when": cond, "reply": reply}
    if repeat > 1:
        e["repeat"] = repeat
    return e


STAGE1 = when(["# Stage 1"], AGENTS + ["Stage 2/"])
exchanges = [
    ex("seed 1: warp per row (a compile error)", STAGE1,
       code("a0-warp-typo.cu", "Structure: one warp per row with shuffle reductions; a row of "
            "4096 floats stays in L1 between the three passes, so x comes from DRAM once.")),
    ex("debug seed 1", when(["# Debug agent", "variant: a0"]),
       code("a1-warp-fixed.cu", "Fix: the max reduction read an undeclared `mx`; it reduces `m`.")),
    ex("seed 2: block per row, 4 a step (wrong tail)", STAGE1,
       code("b0-block-unroll4.cu", "Structure: one block per row, block reductions through shared "
            "memory, four elements per thread per step for more loads in flight.")),
    ex("debug seed 2", when(["# Debug agent", "variant: b0"]),
       code("b1-block-tail.cu", "Fix: the loops stopped at cols rounded down to 4; the last "
            "cols % 4 elements of a row are now in the max, the sum and the output.")),
    ex("seed 3: online softmax", STAGE1,
       code("c-online.cu", "Structure: online softmax, one block per row: one read for the "
            "running max and rescaled sum, one more to write (two passes instead of three).")),
]
subs = {
    "mapping": ("map-tuned.cu", "Mapping: online softmax with one block per row and the block "
                "size left to the tuner (THREADS), with launch bounds to match.",
                "occupancy and latency: one block per row with a fixed block size",
                "try 128, 256 and 512 threads per row's block, launch bounds to match"),
    "tiling": ("tile-registers.cu", "Tiling: the row held in registers (16 floats a thread), so "
               "x is read once instead of twice.",
               "memory traffic: x is read twice (the statistics pass and the write pass)",
               "hold the row in registers between the passes: one read of x, one write of y"),
    "memory": ("mem-float4.cu", "Memory: 16-byte loads through the read-only path and streaming "
               "stores of the register-held row, scalar code for unaligned rows.",
               "memory access: 4-byte loads and stores, one instruction per element",
               "float4 loads with __ldg and __stcs stores when cols % 4 == 0, scalar otherwise"),
}
others = ["Stage 2/" + s for s in subs]
for sub, (reply, line, bottleneck, modification) in subs.items():
    exchanges.append(ex("profile " + sub,
                        {"last_user_contains": [{"regex": r"Profile agent[^\n]*" + sub}]},
                        plan(bottleneck, modification), repeat=2))
    exchanges.append(ex("code " + sub,
                        when(["Stage 2/" + sub],
                             AGENTS + [o for o in others if others.index(o) > others.index("Stage 2/" + sub)]),
                        code(reply, line), repeat=2))
exchanges += [
    ex("fallback: any other debug request", when(["Debug agent"]),
       code("b1-block-tail.cu", "Fix: back to the plain block-per-row version that handles "
            "every element."), repeat=6),
    ex("fallback: any other profile request", when(["Profile agent"]),
       plan("memory bandwidth", "apply the sub-stage's principles"), repeat=6),
    ex("fallback: any other request", {},
       code("b1-block-tail.cu", "Structure: one block per row with block reductions."), repeat=6),
]
print(json.dumps({"exchanges": exchanges}, indent=1))
