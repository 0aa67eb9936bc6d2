#!/bin/sh
# check_compile.sh OUR_INCLUDE_DIR
#
# Compiles all_names.c (every public name of the reference headers, used
# with its exact type) against OUR_INCLUDE_DIR, once as C11 and once as
# C++17, both with -Wall -Werror.  Compile only; nothing is linked.
# Exit status: 0 both compile, 1 a compile failed, 2 usage error.
# Environment: CC (default: cc), CXX (default: c++).
set -u

if [ "$#" -ne 1 ]; then
  echo "usage: $0 OUR_INCLUDE_DIR" >&2
  exit 2
fi
inc=$1
here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-cc}
cxx=${CXX:-c++}
work=$(mktemp -d "${TMPDIR:-/tmp}/blosc2-names.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
status=0

if $cc -std=c11 -Wall -Werror -I"$inc" -c "$here/all_names.c" -o "$work/c.o"; then
  echo "check_compile: C11 OK"
else
  echo "check_compile: C11 FAILED" >&2
  status=1
fi

if $cxx -std=c++17 -x c++ -Wall -Werror -I"$inc" -c "$here/all_names.c" -o "$work/cxx.o"; then
  echo "check_compile: C++17 OK"
else
  echo "check_compile: C++17 FAILED" >&2
  status=1
fi

exit $status
