#!/usr/bin/env bash
# The fresh-machine path, checked on this machine: hide every R package installed from CRAN (only
# R's own library and Debian's site library stay visible) and start from an empty user library,
# then run the install step for make check and make demo as a new user would, and the demo itself.
# Fails if any of it fails, or if the demo does not write its figure.
#
# Usage: bash tools/check-fresh.sh      (also: make fresh; .ci/run runs it before make check)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lib"
export R_LIBS_USER="$tmp/lib"
export R_LIBS_SITE="/usr/lib/R/site-library:/usr/lib/R/library"
unset R_LIBS

echo "check-fresh: R libraries: $(Rscript --vanilla -e 'cat(.libPaths(), sep = " ")')"

# 1. the main job's install step must not need the network for optional packages: with an
#    unreachable CRAN mirror it still succeeds when the hard dependencies are present (Debian)
echo "check-fresh: make demo's install step with an unreachable CRAN mirror"
CRAN_REPO="file://$tmp/no-such-repo" bash tools/install-deps.sh demo

# 2. the full install step (what make check installs) into the empty user library
echo "check-fresh: make check's install step"
bash tools/install-deps.sh check
Rscript --vanilla -e '
  d <- read.dcf("DESCRIPTION", fields = "Suggests")[1, 1]
  pk <- trimws(sub("\\(.*$", "", trimws(strsplit(d, ",")[[1L]])))
  ok <- vapply(pk, requireNamespace, logical(1), quietly = TRUE)
  if (!all(ok)) stop("after install-deps, R cannot load: ", paste(pk[!ok], collapse = ", "))
  cat("check-fresh: all", length(pk), "suggested packages load\n")'

# 2b. make check decides about pandoc after make deps has run, not when make reads the Makefile: make
#     starts with pandoc absent from PATH, a prerequisite standing in for make deps puts it there, and
#     the build and check flags read afterwards must build and check the vignettes
echo "check-fresh: make check's vignette flags when pandoc is installed by make deps"
mkdir -p "$tmp/bin"
ln -s "$(command -v sed)" "$tmp/bin/sed"
flags="$(PATH="$tmp/bin" "$(command -v make)" -s \
  --eval 'fresh-deps: ; @'"$(command -v ln)"' -s '"$(command -v pandoc)"' '"$tmp/bin/pandoc" \
  --eval 'fresh-flags: fresh-deps ; @echo "build [$(BUILD_FLAGS)] check [$(CHECK_FLAGS)]"' fresh-flags)"
echo "check-fresh: $flags"
if grep -q -- '-vignettes' <<<"$flags"; then
  echo "check-fresh: make check would skip the vignettes although make deps installed pandoc" >&2
  exit 1
fi

# 3. the demo, with fgseq installed into the fresh library
echo "check-fresh: make demo"
make demo DEMO_DIR="$tmp/demo" > "$tmp/demo.log" 2>&1 || { cat "$tmp/demo.log"; exit 1; }
tail -n 5 "$tmp/demo.log"
test -s "$tmp/demo/heart-curves.png" || { echo "check-fresh: the demo wrote no figure" >&2; exit 1; }
echo "check-fresh: ok (the demo wrote heart-curves.png)"
