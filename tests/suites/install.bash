# install: `make install` puts a working egg into any prefix, and the installed
# autoconf macro EGG_PROG_NVCC puts egg-cc in front of nvcc in a user's configure.

suite_probe() {
	[ -f "$EGG_BUILDDIR/Makefile" ] || { echo "no build tree Makefile"; return 1; }
}

test_make_install_into_a_destdir_gives_working_programs() {
	make -s -C "$EGG_BUILDDIR" install DESTDIR="$T/d" >install.log 2>&1 || fail "make install: $(tail -5 install.log)"
	local bin man aclocal
	bin=$(find "$T/d" -path '*/bin/egg-cc' -type f | head -1)
	[ -n "$bin" ] || fail "egg-cc not installed"
	[ -x "$(dirname "$bin")/egg" ] || fail "egg not installed"
	man=$(find "$T/d" -name 'egg-cc.1' | head -1)
	[ -n "$man" ] || fail "egg-cc.1 not installed"
	aclocal=$(find "$T/d" -path '*/aclocal/egg.m4' | head -1)
	[ -n "$aclocal" ] || fail "egg.m4 not installed in aclocal"
	"$(dirname "$bin")/egg" version >v.out || fail "installed egg does not run"
	expect_file_contains v.out "egg "
}

# With the default prefix egg.m4 goes where a plain autoreconf looks (aclocal's
# own directory: Debian's aclocal does not search /usr/local/share/aclocal);
# with a prefix given to make, under it.
test_with_the_default_prefix_egg_m4_goes_where_a_plain_autoreconf_looks() {
	command -v aclocal >/dev/null || skip "aclocal not installed"
	grep -q '^prefix = /usr/local$' "$EGG_BUILDDIR/Makefile" || skip "the build tree was configured with another prefix"
	make -s -C "$EGG_BUILDDIR" install-data DESTDIR="$T/d" >i.log 2>&1 || fail "make install-data: $(tail -5 i.log)"
	[ -f "$T/d$(aclocal --print-ac-dir)/egg.m4" ] || fail "egg.m4 is not in aclocal's own directory: $(find "$T/d" -name egg.m4)"
	make -s -C "$EGG_BUILDDIR" install-data prefix="$T/p" >p.log 2>&1 || fail "make install-data prefix=: $(tail -5 p.log)"
	[ -f "$T/p/share/aclocal/egg.m4" ] || fail "egg.m4 is not under the prefix given: $(find "$T/p" -name egg.m4)"
}

test_egg_prog_nvcc_macro_selects_egg_cc_when_installed() {
	command -v autoconf >/dev/null || skip "autoconf not installed"
	mkdir -p proj/m4 bin
	cp "$EGG_SRCDIR/m4/egg.m4" proj/m4/
	ln -s "$EGG_CC" bin/egg-cc
	cat >proj/configure.ac <<'AC'
AC_INIT([user], [1])
m4_include([m4/egg.m4])
EGG_PROG_NVCC
AC_SUBST([NVCC])
AC_OUTPUT
AC
	(cd proj && autoconf) || fail "autoconf failed on a configure.ac using EGG_PROG_NVCC"
	(cd proj && PATH=$T/bin:$NVCC_DIR:$PATH ./configure >c.out 2>&1) || fail "configure failed"
	grep -q "^NVCC='$T/bin/egg-cc $REAL_NVCC'" proj/config.log ||
		fail "NVCC is not egg-cc in front of nvcc: $(grep '^NVCC=' proj/config.log)"
	(cd proj && PATH=$T/bin:$NVCC_DIR:$PATH ./configure --disable-egg >c.out 2>&1) || fail "configure failed"
	grep -q "^NVCC='$REAL_NVCC'" proj/config.log ||
		fail "--disable-egg did not give plain nvcc: $(grep '^NVCC=' proj/config.log)"
}

# The installed egg.m4, found by autoreconf through ACLOCAL_PATH (what `make
# install` tells a prefix that aclocal does not search), gives configure
# --with-cuda=DIR: DIR/bin/nvcc before PATH's, behind egg-cc; a DIR without
# nvcc is an error.
test_the_installed_macro_is_found_by_autoreconf_and_with_cuda_picks_that_toolkits_nvcc() {
	command -v autoreconf >/dev/null || skip "autoreconf not installed"
	make -s -C "$EGG_BUILDDIR" install-data prefix="$T/p" >i.log 2>&1 || fail "make install-data: $(tail -5 i.log)"
	expect_file_contains i.log "note:   export ACLOCAL_PATH=$T/p/share/aclocal"
	ACLOCAL_PATH=$T/p/share/aclocal make -s -C "$EGG_BUILDDIR" install-data-hook prefix="$T/p" >i2.log 2>&1 ||
		fail "make install-data-hook: $(tail -5 i2.log)"
	expect_file_lacks i2.log "note:"
	mkdir -p proj bin cuda/bin
	ln -s "$EGG_CC" bin/egg-cc
	printf '#!/bin/sh\nexit 0\n' >cuda/bin/nvcc
	chmod +x cuda/bin/nvcc
	cat >proj/configure.ac <<'AC'
AC_INIT([user], [1])
EGG_PROG_NVCC
AC_SUBST([NVCC])
AC_OUTPUT
AC
	(cd proj && ACLOCAL_PATH=$T/p/share/aclocal autoreconf -fi) >ar.log 2>&1 || fail "autoreconf: $(cat ar.log)"
	grep -q 'with-cuda' proj/configure || fail "configure does not offer --with-cuda: the macro was not found"
	local path=$T/bin:$NVCC_DIR:/usr/bin:/bin
	(cd proj && PATH=$path ./configure >c1.out 2>&1) || fail "configure: $(cat proj/c1.out)"
	expect_eq "$(sed -n "s/^NVCC='\(.*\)'$/\1/p" proj/config.log)" "$T/bin/egg-cc $REAL_NVCC" "NVCC"
	(cd proj && PATH=$path ./configure --with-cuda="$T/cuda" >c2.out 2>&1) || fail "configure: $(cat proj/c2.out)"
	expect_eq "$(sed -n "s/^NVCC='\(.*\)'$/\1/p" proj/config.log)" "$T/bin/egg-cc $T/cuda/bin/nvcc" "NVCC with --with-cuda"
	(cd proj && PATH=$path ./configure --with-cuda="$T/nope" >c3.out 2>&1) && fail "--with-cuda of a missing toolkit was accepted"
	expect_file_contains proj/c3.out "there is no $T/nope/bin/nvcc"
}
