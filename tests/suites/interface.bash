# interface: an object egg rewrote has the interface of the user's source -- the
# same strong external symbols, with the same names, linkage and mangling, plus
# egg's own (egg_...) -- so C callers, dlsym() lookups and the user's other
# objects link as they did.  A winner that would change it is a fallback to the
# reference with one warning.  Winners come from a recorded evaluation (CI has no
# GPU); hostile ones are written into the cache as an attacker with write access
# to it would (checksum recomputed).

suite_probe() {
	[ -x "$REAL_NVCC" ] || { echo "no nvcc"; return 1; }
	command -v nm >/dev/null || { echo "no nm (binutils)"; return 1; }
	command -v python3 >/dev/null || { echo "no python3"; return 1; }
}
# the compiles several tests repeat, done once per run (lib.bash)
suite_setup() { share_nvcc_compiles; }

RECORDED=$EGG_SRCDIR/tests/data/pipeline/recorded-eval
export EGG_EVAL_COMMAND=$RECORDED EGG_BUILTIN_TEMPLATES=$EGG_SRCDIR/builtin/templates

# The strong external symbols of an object, sorted; egg's own and nvcc's stubs
# of egg's kernels left out.  (nm's output goes to a file first: under pipefail,
# a reader that stops early would fail the test with nm's SIGPIPE.)
strong_symbols() { # OBJECT
	nm "$1" >"$1.nm" || fail "nm $1"
	awk '$2 ~ /^[TDBRG]$/ { print $3 }' "$1.nm" | grep -v 'egg_' | sort
}

# The example's kernels with softmax_forward given C linkage by FORM: "decl"
# (extern "C" before the definition, the header's declaration gone), "block"
# (extern "C" { } around the definition and the header's declaration).
c_linkage_example() { # FORM
	cp "$EGG_SRCDIR"/examples/{kernels.cu,kernels.h} .
	if [ "$1" = decl ]; then
		# the definition is the first declaration: nothing else gives it C linkage
		sed -i 's/^void softmax_forward(/extern "C" void softmax_forward(/' kernels.cu
		sed -i '/softmax_forward/d' kernels.h
	else
		python3 - <<'PY'
import re
for f in ("kernels.cu", "kernels.h"):
    s = open(f).read()
    # the header's declaration, and the definition with its pragma
    s = re.sub(r'(void softmax_forward\([^)]*\);)', r'extern "C" { \1 }', s, count=1) if f == "kernels.h" else \
        re.sub(r'(#pragma egg optimize[^\n]*\\\n[^\n]*\nvoid softmax_forward\(.*?\n\}\n)', r'extern "C" {\n\1}\n', s,
               count=1, flags=re.S)
    open(f, "w").write(s)
PY
		grep -q '^extern "C" {' kernels.cu || fail "the example's softmax_forward was not wrapped"
		grep -q 'extern "C"' kernels.h || fail "the header was not changed"
	fi
}

# A C program that calls softmax_forward: it links only if the object defines the
# unmangled symbol.
c_caller() {
	cat >main.c <<'C'
void softmax_forward(const float *x, float *y, int rows, int cols);
int main(void) { softmax_forward(0, 0, 0, 0); return 0; }
C
	gcc -c main.c -o main.o || fail "gcc main.c"
}

c_linkage_is_kept() { # FORM
	c_linkage_example "$1"
	run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o kernels.o || fail "$(cat r.err)"
	! grep -q warning r.err || fail "egg fell back: $(grep warning r.err)"
	nm kernels.o >k.nm
	grep -q ' T .*egg_winner__softmax_forward' k.nm || fail "the winner is not linked"
	grep -q ' T softmax_forward$' k.nm || fail "softmax_forward lost its C linkage: $(grep softmax_forward k.nm)"
	"$NVCC_DIR/nvcc" -O3 -arch=sm_90 -c kernels.cu -o ref.o || fail "nvcc on the reference"
	expect_eq "$(strong_symbols kernels.o | tr '\n' ' ')" "$(strong_symbols ref.o | tr '\n' ' ')" \
		"strong external symbols of egg's object against nvcc's"
	c_caller
	run_cmd l "$REAL_NVCC" main.o kernels.o -o prog || fail "a C caller does not link: $(cat l.err)"
}

test_extern_c_before_a_launcher_keeps_its_unmangled_symbol_for_a_c_caller() {
	c_linkage_is_kept decl
}

test_extern_c_block_around_a_launcher_keeps_its_unmangled_symbol_for_a_c_caller() {
	c_linkage_is_kept block
}

test_a_shared_library_built_by_egg_exports_the_c_launcher_to_dlsym() {
	c_linkage_example decl
	run_cmd r "$EGG_CC" -O3 -arch=sm_90 -Xcompiler -fPIC -shared kernels.cu -o libk.so || fail "$(cat r.err)"
	! grep -q warning r.err || fail "egg fell back: $(grep warning r.err)"
	nm -D libk.so >so.nm
	grep -q ' T softmax_forward$' so.nm || fail "libk.so does not export softmax_forward: $(grep softmax so.nm)"
	grep -q ' T .*egg_winner__softmax_forward' so.nm || fail "the winner is not in libk.so"
	cat >look.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) { printf("dlopen: %s\n", dlerror()); return 2; }
	void *f = dlsym(h, "softmax_forward");
	printf("%s\n", f ? "found" : "missing");
	return f ? 0 : 1;
}
C
	gcc look.c -o look -ldl || fail "gcc look.c"
	run_cmd d ./look "$T/libk.so" || fail "dlsym: $(cat d.out d.err)"
	expect_eq "$(cat d.out)" found
}

# Launchers in a namespace, an overload set with one member annotated, static
# and inline functions and a polymorphic class (vtable, typeinfo, a static member)
# beside them: egg's object defines exactly nvcc's strong symbols plus egg's own,
# and a C++ caller of each links.
test_namespaces_overloads_static_and_inline_functions_keep_their_symbols() {
	cat >k.cu <<'CU'
#include <cuda_runtime.h>
__global__ void scale_k(const float *x, float *y, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i];
}
static int blocks(int n) { return (n + 255) / 256; }
inline int twice(int n) { return 2 * n; }
namespace ops { namespace v2 {
#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20, a = 2.0)
void scale(const float *x, float *y, float a, int n)
{
	scale_k<<<blocks(n), 256>>>(x, y, a, n);
}
} }
void scale(const float *x, float *y, int n) { ops::v2::scale(x, y, 1.0f, twice(n) / 2); }
#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20, a = 2.0)
void scale(const float *x, float *y, float a, int n)
{
	scale_k<<<blocks(n), 256>>>(x, y, a, n);
}
static void unused_helper(void) {}
int calls = 0;
struct Shape { virtual ~Shape(); virtual int sides() const; static int made; };
Shape::~Shape() {}
int Shape::sides() const { return 0; }
int Shape::made = 0;
CU
	run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c k.cu -o k.o || fail "$(cat r.err)"
	! grep -q warning r.err || fail "egg fell back: $(grep warning r.err)"
	nm -C k.o >k.nm
	grep -q ' T egg_winner__scale' k.nm || fail "no winner linked: $(cat r.err)"
	"$NVCC_DIR/nvcc" -O3 -arch=sm_90 -c k.cu -o ref.o || fail "nvcc on the reference"
	expect_eq "$(strong_symbols k.o | tr '\n' ' ')" "$(strong_symbols ref.o | tr '\n' ' ')" \
		"strong external symbols of egg's object against nvcc's"
	cat >main.cu <<'CU'
namespace ops { namespace v2 { void scale(const float *, float *, float, int); } }
void scale(const float *, float *, int);
void scale(const float *, float *, float, int);
extern int calls;
int main() { ops::v2::scale(0, 0, 1, 0); scale(0, 0, 0); scale(0, 0, 2, 0); return calls; }
CU
	run_cmd l "$REAL_NVCC" -arch=sm_90 main.cu k.o -o prog || fail "a C++ caller does not link: $(cat l.err)"
}

# Builds the example once (a recorded search fills the cache), lets tamper_winner
# change softmax_forward's winner, builds again in cache mode, and expects one
# warning that names WHY, and an object with nvcc's interface.
falls_back_on_interface() { # PYTHON_EXPR WHY
	cp "$EGG_SRCDIR"/examples/{kernels.cu,kernels.h} .
	"$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o first.o 2>first.err || fail "first build: $(cat first.err)"
	tamper_cached_winner softmax_forward "$1"
	EGG_MODE=cache run_cmd r "$EGG_CC" -O3 -arch=sm_90 -c kernels.cu -o kernels.o ||
		fail "the build broke: $(cat r.err)"
	expect_file_lines r.err 1
	expect_file_contains r.err "warning: egg: the optimized object would change the interface of kernels.cu"
	expect_file_contains r.err "$2"
	expect_file_contains r.err "compiling the reference"
	nm kernels.o >k.nm
	! grep -q egg_winner k.nm || fail "a winner was linked after the fallback"
	"$NVCC_DIR/nvcc" -O3 -arch=sm_90 -c kernels.cu -o ref.o || fail "nvcc on the reference"
	expect_eq "$(strong_symbols kernels.o | tr '\n' ' ')" "$(strong_symbols ref.o | tr '\n' ' ')" \
		"strong external symbols after the fallback against nvcc's"
}

test_a_winner_that_adds_an_external_symbol_falls_back_with_one_warning() {
	# a non-static global of a name the user's program may define too
	falls_back_on_interface 's + "\nint scratch_total = 0;\n"' "it defines 'scratch_total'"
}

test_a_winner_that_changes_the_launchers_mangling_falls_back_with_one_warning() {
	# the dispatcher after the winner is read without const: _Z15softmax_forwardPfS_ii
	falls_back_on_interface 's + "\n#define const\n"' \
		"which the source defines"
}
