# helpers.sh -- shared by tests/suites/report.bash and verify.bash (sourced, not
# a suite): the example project, the recorded evaluator, and readers of the
# report file.

RECORDED=$EGG_SRCDIR/tests/data/pipeline/recorded-eval

setup_example() {
	export PATH=$(dirname "$REAL_NVCC"):$PATH EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates
	cp "$EGG_SRCDIR"/examples/{kernels.cu,kernels.h,main.cu} .
	# A GPU on the test machine must not take part: nvidia-smi sees none.
	mkdir -p nogpu
	printf '#!/bin/sh\nexit 9\n' >nogpu/nvidia-smi
	chmod +x nogpu/nvidia-smi
	export PATH=$T/nogpu:$PATH
}

# (nm's output goes to a file: under pipefail, grep -q closing the pipe early
# would make nm's SIGPIPE fail the test.)
winners_in() { nm -C "$1" >"$1.nm"; grep -c ' T egg_winner__' "$1.nm"; }

# search: one build of the example through the recorded evaluator (stderr to search.err)
search() { # [ENV=VALUE...]
	env "$@" EGG_EVAL_COMMAND="$RECORDED" "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o search.o \
		2>search.err || fail "search failed: $(cat search.err)"
}

# field FILE LINE KEY: a member of the LINE-th record (1-based) of a report file
field() {
	python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[int(sys.argv[2]) - 1])
v = r
for k in sys.argv[3].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print("null" if v is None else v)' "$1" "$2" "$3"
}

# outcomes FILE: the outcome of each record, "kernel=outcome" per line
outcomes() {
	python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print("%s=%s" % (r["kernel"], r["outcome"]))' "$1"
}
