#!/usr/bin/env bash
# The package and the C++ core under AddressSanitizer and UndefinedBehaviorSanitizer (with
# -fsanitize=float-cast-overflow): builds the package into its own library (ASAN_LIB, default
# ./asan-lib) with a private Makevars passed through R_MAKEVARS_USER, then runs
#   1. the core's own test (tests/cpp/test_core.cpp) built with the same flags,
#   2. the testthat suite against that build,
#   3. tools/fuzz.R: bad and extreme inputs, each in its own R process (a crash fails its case).
# R itself is not instrumented: the ASan runtime is preloaded (LD_PRELOAD). Leak detection is off (R
# keeps memory until exit by design). Any sanitizer report fails the run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

RSCRIPT=${RSCRIPT:-Rscript}
CXX=${CXX:-g++}
ASAN_LIB=${ASAN_LIB:-$PWD/asan-lib}
SAN="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=undefined,float-cast-overflow"
FLAGS="-g -O1 -fno-omit-frame-pointer $SAN"
mkdir -p "$ASAN_LIB"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

start=$(date +%s)
echo "== 1. core test with sanitizers"
bash tools/check-core-tests.sh
eigen=$($RSCRIPT -e 'cat(system.file("include", package = "RcppEigen"))')
$CXX -std=c++17 $FLAGS -Wno-ignored-attributes -I inst/include -I "$eigen" tests/cpp/test_core.cpp \
  -o "$work/test_core"
ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 "$work/test_core" | tail -n 3

echo "== 2. package build with sanitizers into $ASAN_LIB"
cat > "$work/Makevars" <<MAKEVARS
CXX17FLAGS = $FLAGS
CXXFLAGS = $FLAGS
LDFLAGS = -fsanitize=address,undefined
FGSEQ_DEBUG_FLAGS = -g
MAKEVARS
MAKEFLAGS=-j2 R_MAKEVARS_USER="$work/Makevars" R CMD INSTALL --preclean --no-test-load -l "$ASAN_LIB" . \
  > "$work/install.log" 2>&1 || { tail -n 40 "$work/install.log"; exit 1; }

preload="$($CXX -print-file-name=libasan.so) $($CXX -print-file-name=libubsan.so)"
export LD_PRELOAD="$preload"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87
export R_LIBS="$ASAN_LIB${R_LIBS:+:$R_LIBS}"

echo "== 3. testthat suite against the sanitizer build"
$RSCRIPT -e 'testthat::test_local(".", load_package = "installed", reporter = "summary", stop_on_failure = TRUE)' \
  > "$work/tests.log" 2>&1 || { tail -n 60 "$work/tests.log"; echo "check-asan: the test suite failed"; exit 1; }
if grep -Eq "AddressSanitizer|runtime error:" "$work/tests.log"; then
  grep -E -A 20 "AddressSanitizer|runtime error:" "$work/tests.log" | head -n 60
  echo "check-asan: a sanitizer reported an error in the test suite"; exit 1
fi
tail -n 5 "$work/tests.log"

echo "== 4. fuzz cases, each in its own R process"
$RSCRIPT tools/fuzz.R

echo "check-asan: clean in $(( $(date +%s) - start )) s"
