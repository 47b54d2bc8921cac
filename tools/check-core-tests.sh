#!/usr/bin/env bash
# Every core header has its test: a header listed in tests/cpp/headers.txt is
# tested by the file named there, which must call the entry point named there; any other dir/name.hpp by
# tests/cpp/test_name.cpp; every test file is part of the core test program (included by tests/cpp/test_core.cpp).
# Prints each problem and exits 1 when there is one. Run from the package root (make test-core runs it).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
core=inst/include/fgseq
map=tests/cpp/headers.txt
status=0
problem() { echo "check-core-tests: $*"; status=1; }

declare -A mapped_test mapped_symbol
while read -r header test symbol; do
  [[ -z "$header" || "$header" == \#* ]] && continue
  [ -f "$core/$header" ] || problem "$map names $header, which is not a core header"
  mapped_test[$header]=$test
  mapped_symbol[$header]=$symbol
done < "$map"

for path in $(cd "$core" && find . -name '*.hpp' ! -path './fgseq.hpp' | sed 's|^\./||' | sort); do
  stem=$(basename "$path" .hpp)
  own="tests/cpp/test_$stem.cpp"
  if [ -n "${mapped_test[$path]:-}" ]; then
    test=${mapped_test[$path]}
    [ "$test" = "-" ] && continue
    [ -f "tests/cpp/$test" ] || { problem "$map: the test of $path, $test, does not exist"; continue; }
    grep -qw -- "${mapped_symbol[$path]}" "tests/cpp/$test" ||
      problem "$map: tests/cpp/$test does not call ${mapped_symbol[$path]} (the entry point named for $path)"
  elif [ ! -f "$own" ]; then
    problem "$path has no test: add $own, or a line for it in $map"
  fi
done

for f in tests/cpp/test_*.cpp; do
  [ "$f" = tests/cpp/test_core.cpp ] && continue
  grep -q "#include \"$(basename "$f")\"" tests/cpp/test_core.cpp ||
    problem "$f is not included by tests/cpp/test_core.cpp (the core test program)"
done
[ "$status" -eq 0 ] && echo "check-core-tests: every core header has its test"
exit "$status"
