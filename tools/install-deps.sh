#!/usr/bin/env bash
# Install what building, checking and running fgseq needs, and only what is missing:
#   R with a C++ toolchain, Rcpp, RcppEigen, cli, testthat, roxygen2, knitr, rmarkdown, mlbench,
#   modeldata, pandoc; and grpreg (not a Debian package: always from CRAN).
# On Debian/Ubuntu run as root (or with password-less sudo) it uses apt-get (one
# `apt-get update`, then `apt-get install -y` of the missing Debian packages);
# otherwise, or for anything apt could not provide, it falls back to
# install.packages() from CRAN. Quick and silent apart from one line when all is present.
#
# Usage: bash tools/install-deps.sh      (also: make deps)
# Environment: CRAN_REPO (default https://cloud.r-project.org)
set -euo pipefail

CRAN_REPO="${CRAN_REPO:-https://cloud.r-project.org}"

# Debian package -> R package it provides ("-" = not an R package)
DEB_PKGS=(r-cran-rcpp r-cran-rcppeigen r-cran-cli r-cran-testthat r-cran-roxygen2 r-cran-knitr r-cran-rmarkdown
          r-cran-mlbench r-cran-modeldata r-cran-future r-cran-future.apply pandoc)
R_PKGS=(Rcpp RcppEigen cli testthat roxygen2 knitr rmarkdown mlbench modeldata future future.apply -)
# R packages with no Debian package: installed from CRAN when missing
CRAN_ONLY_PKGS=(grpreg)

have() { command -v "$1" >/dev/null 2>&1; }

# R packages (from R_PKGS) that R cannot load right now, space separated.
missing_r_pkgs() {
  local wanted=() p
  for p in "${R_PKGS[@]}" "${CRAN_ONLY_PKGS[@]}"; do [ "$p" = "-" ] || wanted+=("$p"); done
  if ! have Rscript; then echo "${wanted[*]}"; return; fi
  # system.file() is quick: it does not load the packages
  Rscript --vanilla -e '
    pk <- commandArgs(trailingOnly = TRUE)
    ok <- nzchar(vapply(pk, function(p) system.file(package = p), ""))
    cat(pk[!ok])' "${wanted[@]}" 2>/dev/null
}

missing_r="$(missing_r_pkgs)"
need_toolchain=0
if ! have Rscript || ! have make || ! { have g++ || have c++; }; then need_toolchain=1; fi
need_pandoc=0
have pandoc || need_pandoc=1

if [ -z "$missing_r" ] && [ "$need_toolchain" -eq 0 ] && [ "$need_pandoc" -eq 0 ]; then
  echo "install-deps: all dependencies present"
  exit 0
fi
echo "install-deps: missing R packages: ${missing_r:-none}; toolchain: $([ $need_toolchain -eq 1 ] && echo missing || echo ok); pandoc: $([ $need_pandoc -eq 1 ] && echo missing || echo ok)"

# ---- apt route -------------------------------------------------------------------
SUDO=""
use_apt=0
if have apt-get && have dpkg; then
  if [ "$(id -u)" -eq 0 ]; then
    use_apt=1
  elif have sudo && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"; use_apt=1
  fi
fi

if [ "$use_apt" -eq 1 ]; then
  deb_missing=()
  [ "$need_toolchain" -eq 1 ] && deb_missing+=(r-base-dev)
  for i in "${!DEB_PKGS[@]}"; do
    deb="${DEB_PKGS[$i]}"; rp="${R_PKGS[$i]}"
    if [ "$rp" = "-" ]; then
      [ "$need_pandoc" -eq 1 ] || continue
    else
      case " $missing_r " in *" $rp "*) ;; *) continue ;; esac
    fi
    dpkg -s "$deb" >/dev/null 2>&1 || deb_missing+=("$deb")
  done
  if [ "${#deb_missing[@]}" -gt 0 ]; then
    echo "install-deps: apt-get install ${deb_missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    # install one by one only if the batch fails (a name unknown to this release)
    if ! $SUDO apt-get install -y -qq --no-install-recommends "${deb_missing[@]}"; then
      for deb in "${deb_missing[@]}"; do
        $SUDO apt-get install -y -qq --no-install-recommends "$deb" ||
          echo "install-deps: apt could not install $deb" >&2
      done
    fi
  fi
  missing_r="$(missing_r_pkgs)"
fi

# ---- CRAN fallback -----------------------------------------------------------------
if ! have Rscript; then
  echo "install-deps: R is not installed and apt-get is not usable here;" \
       "install R (>= 4.1) with a C++ compiler first (https://cloud.r-project.org)" >&2
  exit 1
fi
if [ -n "$missing_r" ]; then
  echo "install-deps: install.packages($missing_r) from $CRAN_REPO"
  # shellcheck disable=SC2086
  Rscript --vanilla -e '
    pk <- commandArgs(trailingOnly = TRUE)
    lib <- .libPaths()[1L]
    if (file.access(lib, 2L) != 0L) {
      lib <- Sys.getenv("R_LIBS_USER")
      dir.create(lib, recursive = TRUE, showWarnings = FALSE)
      .libPaths(c(lib, .libPaths()))
      message("installing into ", lib)
    }
    utils::install.packages(pk, lib = lib, repos = Sys.getenv("CRAN_REPO"))
    ok <- vapply(pk, requireNamespace, logical(1), quietly = TRUE)
    if (!all(ok)) stop("could not install: ", paste(pk[!ok], collapse = ", "))' $missing_r
fi
if ! have pandoc; then
  echo "install-deps: pandoc is still missing: the vignette cannot be built" \
       "(make check then skips it); install pandoc from https://pandoc.org" >&2
fi
if ! have make || ! { have g++ || have c++; }; then
  echo "install-deps: no C++ compiler or make: install a toolchain (Debian: r-base-dev)" >&2
  exit 1
fi
echo "install-deps: done"
