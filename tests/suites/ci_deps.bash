# ci_deps: .ci/deps, which sets up a CI machine, does only the apt work that is
# needed: nothing when every package is there, the missing ones from the package
# lists already on the machine, and fresh lists only when those fail.  apt-get,
# dpkg-query and sudo are stand-ins that log what they were asked.

# fake_apt INSTALLED FAILS: stand-ins in $T/bin; dpkg-query says every package is
# installed when INSTALLED is "all", else none; apt-get install fails until an
# update when FAILS is "stale".
fake_apt() {
	mkdir -p bin
	cat >bin/dpkg-query <<SH
#!/bin/sh
[ "$1" = all ] && printf 'install ok installed'
exit 0
SH
	cat >bin/apt-get <<SH
#!/bin/sh
echo "apt-get \$*" >>"$T/apt.log"
case "\$*" in
*update*) : >"$T/updated" ;;
*install*) [ "$2" != stale ] || [ -e "$T/updated" ] || exit 100 ;;
esac
exit 0
SH
	printf '#!/bin/sh\nexec "$@"\n' >bin/sudo
	chmod +x bin/*
	: >apt.log
}

# the apt-get commands .ci/deps ran, one word each: install or update
apt_calls() {
	awk '{ print $2 == "install" ? "install" : $2 }' apt.log | tr '\n' ' '
}

test_ci_deps_runs_no_apt_when_every_package_is_installed() {
	fake_apt all ok
	PATH=$T/bin:$PATH run_cmd d sh "$EGG_SRCDIR/.ci/deps" || fail "exit status $(cat d.rc): $(cat d.err)"
	expect_eq "$(apt_calls)" "" "apt-get calls"
}

test_ci_deps_installs_missing_packages_from_the_lists_it_has_without_recommends() {
	fake_apt none ok
	PATH=$T/bin:$PATH run_cmd d sh "$EGG_SRCDIR/.ci/deps" || fail "exit status $(cat d.rc): $(cat d.err)"
	expect_eq "$(apt_calls)" "install " "apt-get calls"
	expect_file_contains apt.log "--no-install-recommends"
	expect_file_contains apt.log " chromium-headless-shell"
}

test_ci_deps_fetches_fresh_package_lists_when_installing_fails() {
	fake_apt none stale
	PATH=$T/bin:$PATH run_cmd d sh "$EGG_SRCDIR/.ci/deps" || fail "exit status $(cat d.rc): $(cat d.err)"
	expect_eq "$(apt_calls)" "install update install " "apt-get calls"
}
