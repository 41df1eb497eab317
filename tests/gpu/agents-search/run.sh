#!/bin/bash
# run.sh LOGDIR -- one real agent search end to end: the scripted model server
# (tests/agents/model-server.py) answers egg's openai backend with the real
# CUDA code of fixture.json (make-fixture.py says what each answer is), the
# real `egg-cc -O3 -arch=sm_90 -c softmax.cu` searches, the real harness
# (`egg eval` on this machine's GPU) judges every candidate, and main.cu checks
# the linked winner against a softmax on the host.
#
# Needs egg, egg-cc, nvcc and python3 on PATH.  The prompts are egg's installed
# ones unless EGG_PROMPTS_DIR says otherwise.  EGG_EVAL_COMMAND is honoured
# only when set (the CPU suite proves the fixture with cpu-eval that way); on
# the GPU leave it unset so the harness judges.
#
# Writes into LOGDIR: server.log (every request, without the key), search.err
# (egg-cc's progress lines), transcript.txt (`egg report KEY --full`), ncu.txt
# (the Nsight Compute tables the profile prompts carried),
# entry.txt and entry.json (`egg cache show KEY`), prog.out, the cache.  Prints
# one PASS/FAIL line per check; exits 0 when all pass.
set -u
here=$(cd "$(dirname "$0")" && pwd)
logdir=${1:?usage: run.sh LOGDIR}
mkdir -p "$logdir" && logdir=$(cd "$logdir" && pwd) || exit 1
server=$here/../../agents/model-server.py
fails=0
say() { echo "$1 $2"; [ "$1" = PASS ] || fails=$((fails + 1)); }
check() { # check DESCRIPTION COMMAND...: PASS when COMMAND succeeds
	local what=$1
	shift
	if "$@"; then say PASS "$what"; else say FAIL "$what"; fi
}
for tool in egg egg-cc nvcc python3; do
	command -v $tool >/dev/null || { echo "FAIL $tool is not on PATH"; exit 1; }
done

# a dummy key, kept out of LOGDIR and the process list (a file and the environment)
secret=$(mktemp -d) || exit 1
key=sk-egg-gpu-fixture-$$-$(date +%s%N)
printf '%s\n' "$key" >"$secret/key"
server_pid=
cleanup() {
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
	rm -rf "$secret"
}
trap cleanup EXIT

cd "$logdir" || exit 1
rm -rf cache port server.log server.err softmax.o prog
python3 "$server" --fixture "$here/fixture.json" --port-file "$logdir/port" \
	--log "$logdir/server.log" --expect-key-file "$secret/key" 2>server.err &
server_pid=$!
for _ in $(seq 200); do
	[ -s port ] && break
	kill -0 $server_pid 2>/dev/null || break
	sleep 0.05
done
[ -s port ] || { echo "FAIL the model server did not start: $(cat server.err)"; exit 1; }

# an installed prefix carried elsewhere still finds its prompts next to egg
if [ -z "${EGG_PROMPTS_DIR:-}" ] && [ -d "$(dirname "$(command -v egg)")/../share/egg/prompts/roles" ]; then
	EGG_PROMPTS_DIR=$(cd "$(dirname "$(command -v egg)")/../share/egg/prompts" && pwd)
	export EGG_PROMPTS_DIR
fi
export EGG_BACKEND=openai EGG_MODEL=fixture-model EGG_API_KEY=$key
export EGG_API_BASE=http://127.0.0.1:$(cat port)/v1 EGG_CACHE_DIR=$logdir/cache
unset EGG_API_KEY_FILE
egg config >config.txt 2>&1
judge="the real harness on this GPU"
if [ -n "${EGG_EVAL_COMMAND:-}" ]; then
	judge="EGG_EVAL_COMMAND ($(basename "${EGG_EVAL_COMMAND%% *}"))"
elif grep -q '^eval_command = [^ #]' config.txt; then
	judge="the configured $(grep '^eval_command' config.txt)"
	echo "note: egg's configuration names an eval_command; the harness of this machine is not the judge"
fi

start=$(date +%s)
egg-cc -O3 -arch=sm_90 -c "$here/softmax.cu" -o softmax.o 2>search.err
rc=$?
echo "search: $(($(date +%s) - start)) s, $(grep -c . server.log) model requests, judged by $judge"
echo "prompts: $(grep '^prompts_dir' config.txt)"
check "egg-cc compiled softmax.cu (rc $rc): $(tail -1 search.err)" [ $rc = 0 ]
check "the search found a winner" grep -q "x over reference" search.err
check "egg-cc warned of nothing" eval '! grep -q warning search.err'
nm -C softmax.o >softmax.nm 2>&1
check "the winner is linked in softmax.o" grep -q ' T egg_winner__softmax_forward(' softmax.nm

nvcc -O3 -arch=sm_90 "$here/main.cu" softmax.o -o prog >link.err 2>&1
check "the program links" [ -x prog ]
./prog >prog.out 2>&1
if [ -n "${EGG_EVAL_COMMAND:-}" ] && grep -q "CUDA error" prog.out; then
	echo "SKIP the program's results (no usable GPU here: $(head -1 prog.out))"
else
	check "the program's results are right: $(tail -1 prog.out)" [ "$(tail -1 prog.out)" = ok ]
fi
egg-cc -O3 -arch=sm_90 -c "$here/softmax.cu" -o softmax2.o 2>hit.err
rc=$?
nm -C softmax2.o >softmax2.nm 2>&1
check "a rebuild takes the cached winner silently (rc $rc)" eval \
	'[ $rc = 0 ] && [ ! -s hit.err ] && grep -q " T egg_winner__softmax_forward(" softmax2.nm'

egg cache ls --json >cache-ls.json 2>&1
entry=$(python3 -c 'import json, sys
print(" ".join(e["key"] for e in json.load(open(sys.argv[1])) if e["name"] == "softmax_forward"))' \
	cache-ls.json 2>/dev/null)
one_key() { [ -n "$entry" ] && [ "${entry// /}" = "$entry" ]; }
check "one cache entry for softmax_forward ($entry)" one_key
egg report "$entry" --full >transcript.txt 2>&1
egg cache show "$entry" >entry.txt 2>&1
egg cache show "$entry" --json >entry.json 2>&1
check "egg report shows the transcript" grep -q "winner:" transcript.txt

# the entry's result: what the harness said of each candidate
python3 - entry.json >verdicts.txt 2>&1 <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
print("outcome", e.get("outcome"))
res = e["result"] if isinstance(e["result"], dict) else json.loads(e["result"])
print("device", (res.get("device") or {}).get("name"))
for c in res["candidates"]:
    print("verdict %s %s %s %s" % (c["name"].replace(" ", "_"), c["verdict"], c.get("speedup"),
                                   (c.get("message") or "").replace("\n", " ")[:160]))
best = res.get("best")
print("best", res["candidates"][best]["name"] if best is not None else None)
PY
verdict() { awk -v n="$1" '$1 == "verdict" && $2 == n { print $3 }' verdicts.txt; }
check "the entry is a winner ($(grep '^best' verdicts.txt))" grep -qx "outcome winner" verdicts.txt
check "seed 1 (a typo) got compile_error from $judge" [ "$(verdict s1.1)" = compile_error ]
check "seed 1's repair s1.1-fix1 passed: $(verdict s1.1-fix1)" [ "$(verdict s1.1-fix1)" = pass ]
check "seed 2 (the tail forgotten) got wrong from $judge: $(grep '^verdict s1.2 ' verdicts.txt | cut -d' ' -f5-)" \
	[ "$(verdict s1.2)" = wrong ]
check "seed 2's repair s1.2-fix1 passed: $(verdict s1.2-fix1)" [ "$(verdict s1.2-fix1)" = pass ]
check "seed 3 (online softmax) passed: $(verdict s1.3)" [ "$(verdict s1.3)" = pass ]

python3 - server.log >requests.txt 2>&1 <<'PY'
import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
print("requests", len(l))
print("auth", sorted(set(e["auth"] for e in l)))
print("failed", [e["name"] for e in l if e["status"] != 200 or e["expect_failed"]])
print("fallbacks", [e["name"] for e in l if (e["name"] or "").startswith("fallback")])
for e in l:
    print(" ", e["n"], e["name"], e["status"])
PY
check "every request carried the key ($(grep ^auth requests.txt))" grep -qx "auth \['match'\]" requests.txt
check "every request got its exchange ($(grep ^failed requests.txt))" grep -qx "failed \[\]" requests.txt
grep -q "fallbacks \[\]" requests.txt || echo "note: $(grep ^fallbacks requests.txt)"
check "the key appears nowhere in $logdir" eval '! grep -rqF "$key" "$logdir"'

# stage 2's profile agent read Nsight Compute's metrics of each current best
# (issue 29), when this machine's harness judged and its ncu could profile
python3 - server.log >ncu.txt 2>&1 <<'PY'
import json, re, sys
for e in (json.loads(x) for x in open(sys.argv[1])):
    text = e["messages"][-1]["content"] if e["messages"] else ""
    m = re.search(r"## Nsight Compute metrics of the current best candidate\n(.*?)\n## ", text, re.S)
    if m:
        print("%s: %s" % (e["name"], m.group(1).strip()))
PY
if [ "$judge" = "the real harness on this GPU" ]; then
	check "the profile prompts carry ncu metrics ($(grep -c 'Nsight Compute, one call' ncu.txt) of $(grep -c . ncu.txt); ncu.txt)" \
		eval '[ -s ncu.txt ] && ! grep -q "no ncu metrics" ncu.txt'
	grep -m1 -A4 "Nsight Compute, one call" ncu.txt || grep -m1 "no ncu metrics" ncu.txt
fi

cat search.err
echo "agents-search: $fails failed"
exit $((fails != 0))
