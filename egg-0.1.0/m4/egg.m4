# egg.m4 -- autoconf macros for projects that build CUDA code with egg.
# Installed to $(datadir)/aclocal; call from your configure.ac:
#
#   EGG_PROG_NVCC
#   AC_SUBST([NVCC])           # then use $(NVCC) in Makefile.am
#
# EGG_PROG_NVCC([ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
# -------------------------------------------------------
# Finds nvcc (honouring a user-set NVCC and --with-cuda=DIR / CUDA_HOME) and, when
# egg-cc is installed and --disable-egg was not given, sets NVCC to "egg-cc NVCC",
# the launcher form, so every CUDA compilation goes through egg.  Without egg-cc the
# project builds with plain nvcc: egg is never a hard dependency of the user's build.
AC_DEFUN([EGG_PROG_NVCC], [
  AC_ARG_VAR([NVCC], [CUDA compiler driver (default: egg-cc in front of nvcc when installed)])
  AC_ARG_ENABLE([egg],
    [AS_HELP_STRING([--disable-egg], [compile CUDA with plain nvcc even when egg-cc is installed])],
    [egg_enable=$enableval], [egg_enable=yes])
  AS_IF([test -z "$NVCC"], [
    egg_nvcc_path=$PATH
    AS_IF([test -n "$CUDA_HOME"], [egg_nvcc_path="$CUDA_HOME/bin$PATH_SEPARATOR$egg_nvcc_path"])
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
