# run-lib.sh -- sourced by the GPU scripts that build with egg-cc from an empty
# cache (kernel-target, scopes, optional): with $1 the LOGDIR, makes it, puts
# the cache in it (emptied), enters it, and defines say PASS|FAIL TEXT, which
# counts the failures in $fails.
set -u
logdir=${1:?usage: run.sh LOGDIR}
mkdir -p "$logdir"
export EGG_CACHE_DIR=$logdir/cache
rm -rf "$EGG_CACHE_DIR"
cd "$logdir" || exit 1
fails=0
say() { echo "$1 $2"; [ "$1" = PASS ] || fails=$((fails + 1)); }
