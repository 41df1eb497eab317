# egg.m4 -- autoconf macros for projects that build CUDA code with egg.
# Installed, with egg's default prefix, in aclocal's own directory
# (`aclocal --print-ac-dir`, /usr/share/aclocal on Debian), where a plain
# autoreconf finds it; with another prefix in PREFIX/share/aclocal (or egg's
# --with-aclocaldir=DIR).  Call from your configure.ac:
#
#   EGG_PROG_NVCC
#   AC_SUBST([NVCC])           # then use $(NVCC) in Makefile.am
#
# aclocal (and so autoreconf) must be able to find this file.  Debian's and
# Ubuntu's aclocal search only /usr/share/aclocal (`aclocal --print-ac-dir`)
# and the directories named in its "dirlist" file, not /usr/local/share/aclocal;
# for a prefix other than egg's default, either
#   export ACLOCAL_PATH=PREFIX/share/aclocal      (automake 1.13 or later), or
#   echo PREFIX/share/aclocal >>"$(aclocal --print-ac-dir)/dirlist"   (once, as root), or
#   copy egg.m4 into your project's m4/ (ACLOCAL_AMFLAGS = -I m4).
#
# EGG_PROG_NVCC([ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
# -------------------------------------------------------
# Finds nvcc: a user-set NVCC is kept as it is; otherwise nvcc is looked for in
# DIR/bin first with --with-cuda=DIR, then in $CUDA_HOME/bin, then on PATH.
# When egg-cc is installed (on PATH) and --disable-egg was not given, NVCC becomes
# "egg-cc NVCC", the launcher form, so every CUDA compilation goes through egg.
# Without egg-cc the project builds with plain nvcc: egg is never a hard
# dependency of the user's build.  --with-cuda=DIR without DIR/bin/nvcc is an
# error (the user named a toolkit that is not there).
AC_DEFUN([EGG_PROG_NVCC], [
  AC_ARG_VAR([NVCC], [CUDA compiler driver (default: egg-cc in front of nvcc when installed)])
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda=DIR], [the CUDA toolkit whose DIR/bin/nvcc to use (default: CUDA_HOME, then PATH)])],
    [egg_cuda_dir=$withval], [egg_cuda_dir=])
  AC_ARG_ENABLE([egg],
    [AS_HELP_STRING([--disable-egg], [compile CUDA with plain nvcc even when egg-cc is installed])],
    [egg_enable=$enableval], [egg_enable=yes])
  AS_CASE([$egg_cuda_dir], [yes|no], [egg_cuda_dir=])
  AS_IF([test -z "$NVCC"], [
    egg_nvcc_path=$PATH
    AS_IF([test -n "$CUDA_HOME"], [egg_nvcc_path="$CUDA_HOME/bin$PATH_SEPARATOR$egg_nvcc_path"])
    AS_IF([test -n "$egg_cuda_dir"], [
      AS_IF([test -x "$egg_cuda_dir/bin/nvcc"], [],
            [AC_MSG_ERROR([--with-cuda=$egg_cuda_dir: there is no $egg_cuda_dir/bin/nvcc])])
      egg_nvcc_path="$egg_cuda_dir/bin$PATH_SEPARATOR$egg_nvcc_path"])
    AC_PATH_PROG([EGG_REAL_NVCC], [nvcc], [], [$egg_nvcc_path])
    AC_PATH_PROG([EGG_CC], [egg-cc])
    AS_IF([test -n "$EGG_REAL_NVCC" && test -n "$EGG_CC" && test "x$egg_enable" != xno],
          [NVCC="$EGG_CC $EGG_REAL_NVCC"],
          [NVCC=$EGG_REAL_NVCC])
  ])
  AC_MSG_CHECKING([for the CUDA compiler])
  AS_IF([test -n "$NVCC"],
        [AC_MSG_RESULT([$NVCC]); $1],
        [AC_MSG_RESULT([none]); m4_default([$2], [AC_MSG_ERROR([nvcc was not found; install the CUDA toolkit or set NVCC.])])])
])
