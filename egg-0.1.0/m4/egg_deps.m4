# egg_deps.m4: the checks egg's own configure runs for its dependencies.
# Every failure is one sentence that names the Debian package to install.

# EGG_CHECK_PKG(VAR, PKG-CONFIG-NAME, WHAT, DEBIAN-PACKAGE)
AC_DEFUN([EGG_CHECK_PKG], [
  PKG_CHECK_MODULES([$1], [$2], [],
    [AC_MSG_ERROR([$3 was not found through pkg-config ($2); install the Debian package $4 (apt-get install $4).])])
])

# EGG_CHECK_LLVM: libclang through llvm-config (--with-llvm-config=PATH).
AC_DEFUN([EGG_CHECK_LLVM], [
  AC_ARG_WITH([llvm-config],
    [AS_HELP_STRING([--with-llvm-config=PATH], [llvm-config of the LLVM whose libclang to use])],
    [LLVM_CONFIG=$withval], [LLVM_CONFIG=])
  AS_IF([test -z "$LLVM_CONFIG"],
    [AC_PATH_PROGS([LLVM_CONFIG], [llvm-config llvm-config-16 llvm-config-15 llvm-config-14])])
  AS_IF([test -z "$LLVM_CONFIG" || ! test -x "$LLVM_CONFIG"],
    [AC_MSG_ERROR([llvm-config was not found (needed to locate libclang); install the Debian package libclang-14-dev and llvm-14 (apt-get install libclang-14-dev llvm-14), or pass --with-llvm-config=PATH.])])
  LLVM_VERSION=`$LLVM_CONFIG --version`
  LLVM_LIBDIR=`$LLVM_CONFIG --libdir`
  LLVM_INCLUDEDIR=`$LLVM_CONFIG --includedir`
  LIBCLANG_CFLAGS="-I$LLVM_INCLUDEDIR"
  LIBCLANG_LIBS="-L$LLVM_LIBDIR -Wl,-rpath,$LLVM_LIBDIR -lclang"
  AC_MSG_CHECKING([for libclang in $LLVM_LIBDIR])
  egg_save_CPPFLAGS=$CPPFLAGS; egg_save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $LIBCLANG_CFLAGS"; LIBS="$LIBCLANG_LIBS $LIBS"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <clang-c/Index.h>]],
                                  [[CXIndex i = clang_createIndex(0, 0); clang_disposeIndex(i);]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([libclang's headers or library were not found under $LLVM_INCLUDEDIR and $LLVM_LIBDIR; install the Debian package libclang-$(echo $LLVM_VERSION | cut -d. -f1)-dev.])])
  CPPFLAGS=$egg_save_CPPFLAGS; LIBS=$egg_save_LIBS
  # clang's resource directory (its builtin headers) for the analyzer.
  CLANG_RESOURCE_DIR=`ls -d "$LLVM_LIBDIR"/clang/* 2>/dev/null | tail -n 1`
  AC_SUBST([LLVM_CONFIG]) AC_SUBST([LLVM_VERSION]) AC_SUBST([LLVM_LIBDIR])
  AC_SUBST([LIBCLANG_CFLAGS]) AC_SUBST([LIBCLANG_LIBS]) AC_SUBST([CLANG_RESOURCE_DIR])
  AC_DEFINE_UNQUOTED([EGG_CLANG_RESOURCE_DIR], ["$CLANG_RESOURCE_DIR"], [clang's resource directory])
])

# EGG_CHECK_CUDA: the CUDA toolkit (--with-cuda=DIR, then CUDA_HOME, then nvcc on PATH).
AC_DEFUN([EGG_CHECK_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda=DIR], [CUDA toolkit directory (default: $CUDA_HOME, else the one of nvcc on PATH)])],
    [CUDA_HOME=$withval], [])
  AS_IF([test -z "$CUDA_HOME"],
    [AC_PATH_PROG([EGG_NVCC_ON_PATH], [nvcc])
     AS_IF([test -n "$EGG_NVCC_ON_PATH"],
       [CUDA_HOME=`dirname "$EGG_NVCC_ON_PATH"`; CUDA_HOME=`dirname "$CUDA_HOME"`],
       [test -x /usr/local/cuda/bin/nvcc && CUDA_HOME=/usr/local/cuda])])
  AC_MSG_CHECKING([for nvcc])
  AS_IF([test -n "$CUDA_HOME" && test -x "$CUDA_HOME/bin/nvcc"],
    [NVCC="$CUDA_HOME/bin/nvcc"; AC_MSG_RESULT([$NVCC])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([the CUDA toolkit's nvcc was not found; install the CUDA toolkit (Debian package nvidia-cuda-toolkit, or NVIDIA's cuda-toolkit) and pass --with-cuda=DIR or set CUDA_HOME.])])
  NVCC_VERSION=`"$NVCC" --version 2>/dev/null | sed -n 's/.*release \([[0-9.]]*\),.*/\1/p'`
  AS_IF([test -z "$NVCC_VERSION"],
    [AC_MSG_ERROR([$NVCC --version did not print a release number; check the CUDA toolkit installation under $CUDA_HOME.])])
  AC_MSG_CHECKING([for cuda_runtime.h])
  AS_IF([test -f "$CUDA_HOME/include/cuda_runtime.h"], [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([$CUDA_HOME/include/cuda_runtime.h is missing; install the CUDA toolkit's development headers (Debian package nvidia-cuda-dev).])])
  AC_SUBST([CUDA_HOME]) AC_SUBST([NVCC]) AC_SUBST([NVCC_VERSION])
  AC_DEFINE_UNQUOTED([EGG_CUDA_HOME], ["$CUDA_HOME"], [CUDA toolkit found by configure])
  AC_DEFINE_UNQUOTED([EGG_NVCC_VERSION], ["$NVCC_VERSION"], [nvcc release found by configure])
])
