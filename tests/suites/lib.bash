# lib.bash -- helpers for egg's shell test suites (in the manner of ccache's
# test/suites).  A suite is tests/suites/NAME.bash defining functions test_*,
# each named for the behaviour it proves; optional suite_probe prints a reason
# and returns non-zero to skip the whole suite (a missing tool, no GPU); optional
# suite_setup runs before each test, in its directory.
# Each test runs in a fresh bash, in a fresh temporary directory $T, with
# EGG_CACHE_DIR and HOME inside it so no test sees the user's state.  What the
# tests of one run may share (work whose result depends only on its inputs, such
# as the CPU stand-in's compiled programs) lives under EGG_TEST_RUN_DIR, which
# tests/run makes for the run.

EGG_CC=$EGG_BUILDDIR/egg-cc
EGG=$EGG_BUILDDIR/egg
REAL_NVCC=${EGG_TEST_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
# where the tests' builds find nvcc: a test puts it first on PATH (share_nvcc_compiles
# puts the shared one there)
NVCC_DIR=$(dirname "$REAL_NVCC")

fail() { echo "SUITE-REASON: $*"; exit 1; }
skip() { echo "SUITE-REASON: $*"; exit 77; }

# expect_eq ACTUAL EXPECTED [WHAT]
expect_eq() {
	[ "$1" == "$2" ] || fail "${3:-value}: expected '$2', got '$1'"
}
# expect_contains FILE_OR_STRING_VAR TEXT: FILE must contain TEXT
expect_file_contains() {
	grep -qF -- "$2" "$1" || fail "$1 does not contain '$2': $(head -c 400 "$1")"
}
expect_file_lacks() {
	! grep -qF -- "$2" "$1" || fail "$1 contains '$2'"
}
expect_same_file() {
	cmp -s "$1" "$2" || fail "$1 and $2 differ"
}
expect_file_lines() { # FILE N
	local n
	n=$(wc -l <"$1")
	[ "$n" -eq "$2" ] || fail "$1 has $n lines, expected $2: $(head -c 400 "$1")"
}

# run_cmd OUT_PREFIX CMD... : runs CMD, stdout to PREFIX.out, stderr to PREFIX.err,
# exit status to PREFIX.rc (and $?)
run_cmd() {
	local p=$1
	shift
	"$@" >"$p.out" 2>"$p.err"
	local rc=$?
	echo "$rc" >"$p.rc"
	return $rc
}

# make_fake_nvcc DIR: DIR/nvcc, a stand-in that writes its argv to DIR/argv (one
# per line), prints one line on each stream and exits 3
make_fake_nvcc() { # DIR: a stand-in nvcc that records its argv
	mkdir -p "$1"
	cat >"$1/nvcc" <<'SH'
#!/bin/sh
printf '%s\n' "$@" > "$(dirname "$0")/argv"
echo "fake nvcc stdout"
echo "fake nvcc stderr" >&2
exit 3
SH
	chmod +x "$1/nvcc"
}

# make_quick_nvcc: quick/nvcc, a stand-in that answers --version as the real nvcc and
# otherwise only creates -o's file and copies the last .cu it is given to
# quick/given.cu: parallel builds then cost egg's work, not compilations.  Sets
# EGG_CUDA_HOME, which egg plan would otherwise take from the stand-in's place.
make_quick_nvcc() {
	mkdir -p quick
	cat >quick/nvcc <<SH
#!/bin/sh
[ "\$1" = --version ] && exec "$REAL_NVCC" --version
while [ \$# -gt 0 ]; do
	case "\$1" in -o) : >"\$2" ;; *.cu) cp "\$1" "$T/quick/given.cu" ;; esac
	shift
done
exit 0
SH
	chmod +x quick/nvcc
	export EGG_CUDA_HOME=$(dirname "$(dirname "$(readlink -f "$REAL_NVCC")")")
}

# share_prepared_objects: the harness's prepared objects (EGG_CACHE_DIR/gpu/prepared,
# harness/prepared.c: ref.o, ref64.o and main.o of a bundle, keyed by their
# sources, nvcc and the flags; runtime.o, keyed by nvcc and the flags alone)
# shared by the run's tests, so that a bundle evaluated by several tests is
# compiled once, and the runtime once for all the bundles.  Entries are
# renamed into place whole, so concurrent tests are safe; a test that watches
# the entries come and go keeps its own (it does not call this).
share_prepared_objects() {
	[ -n "${EGG_TEST_RUN_DIR:-}" ] || return 0
	mkdir -p "$EGG_TEST_RUN_DIR/prepared" "$EGG_CACHE_DIR/gpu" &&
		ln -sfn "$EGG_TEST_RUN_DIR/prepared" "$EGG_CACHE_DIR/gpu/prepared"
}

# share_nvcc_compiles: nvcc, first on PATH, through ccache, its cache shared by the
# run's tests (EGG_TEST_RUN_DIR/nvcc), so that a file several tests build the
# same way (the example through egg-cc, a bundle's candidates in the harness) is
# compiled once per run.  ccache keys a compile by the compiler, its arguments
# and the content of the source and of every header it read (paths under TMPDIR
# taken relative to the working directory, so that tests in different
# directories share), and gives back the object and nvcc's output byte for byte;
# a compile that fails is never kept.  egg would take the toolkit's headers from
# where its nvcc lies, so EGG_CUDA_HOME names the real toolkit.  A suite whose
# tests build the same things calls it from suite_setup; a test that watches
# nvcc's runs keeps the real one.  Without tests/run, ccache or with
# EGG_TEST_SHARE_NVCC=0, nothing changes.
share_nvcc_compiles() {
	[ -n "${EGG_TEST_RUN_DIR:-}" ] && [ "${EGG_TEST_SHARE_NVCC:-1}" != 0 ] || return 0
	local cc dir=$EGG_TEST_RUN_DIR/nvcc real tmp
	cc=$(command -v ccache) && real=$(readlink -f "$REAL_NVCC") && [ -x "$real" ] || return 0
	if [ ! -x "$dir/bin/nvcc" ]; then
		mkdir -p "$dir/bin" "$dir/cache" && tmp=$(mktemp "$dir/bin/.nvcc.XXXXXX") || return 0
		cat >"$tmp" <<SH
#!/bin/sh
# nvcc through ccache, for one run of egg's tests (tests/suites/lib.bash)
export CCACHE_DIR='$dir/cache' CCACHE_CONFIGPATH='$dir/ccache.conf' CCACHE_BASEDIR='${TMPDIR:-/tmp}'
exec '$cc' '$real' "\$@"
SH
		: >"$dir/ccache.conf" && chmod +x "$tmp" && mv -f "$tmp" "$dir/bin/nvcc" || { rm -f "$tmp"; return 0; }
	fi
	NVCC_DIR=$dir/bin
	export PATH=$dir/bin:$PATH EGG_CUDA_HOME=${EGG_CUDA_HOME:-$(dirname "$(dirname "$real")")}
}

EDIT_ENTRY=$EGG_SRCDIR/tests/tools/edit-entry.py

# tamper_cached_winner NAME PYTHON_EXPR: replaces the source of every winner of
# NAME in $EGG_CACHE_DIR by what PYTHON_EXPR makes of `s` (the old source),
# recomputing the checksum as egg does and keeping any signature, as someone who
# can write the cache but does not hold its secret would.
tamper_cached_winner() { # NAME PYTHON_EXPR
	python3 "$EDIT_ENTRY" --name "$1" --source "$2" "$EGG_CACHE_DIR"/??/* ||
		fail "no cached winner of $1 to tamper with"
}

suite_run() {
	local suite=$1 t=$2
	T=$(mktemp -d "${TMPDIR:-/tmp}/egg-test.XXXXXX")
	export T HOME=$T/home EGG_CACHE_DIR=$T/cache XDG_CONFIG_HOME=$T/home/.config
	mkdir -p "$HOME"
	unset EGG_MODE EGG_NVCC EGG_CC_DEPTH NVCC_PREPEND_FLAGS NVCC_APPEND_FLAGS
	cd "$T" || exit 1
	if declare -F suite_probe >/dev/null; then
		local why
		if ! why=$(suite_probe); then
			skip "$why"
		fi
	fi
	! declare -F suite_setup >/dev/null || suite_setup
	set -o pipefail
	"$t"
	local rc=$?
	cd / && rm -rf "$T"
	exit $rc
}
