#!/usr/bin/env bash
# Install what building, checking and running fgseq needs, and only what is missing.
#
# Usage: bash tools/install-deps.sh [demo|check]
#   demo   (make demo)  a C++ toolchain and the package's hard dependencies: the Depends, Imports
#          and LinkingTo fields of DESCRIPTION. Suggested packages that are missing are listed in
#          one line; they are not installed and never fail this step.
#   check  (make deps, make check; the default) also every Suggests package (the tests and the
#          vignettes use them: none may be skipped); fails if one cannot be installed. Also
#          pandoc for the vignettes (without it make check skips them, with a notice).
#
# The package lists come from DESCRIPTION, so a dependency added there is installed here.
# Debian/Ubuntu as root (or with password-less sudo): missing R packages come from apt-get
# (r-cran-<name>) where Debian has them. Everything still missing comes from CRAN through
# install.packages(), into the first library of .libPaths() that is writable, or else into
# R_LIBS_USER, created if needed (R searches it from then on).
#
# Environment: CRAN_REPO, the CRAN mirror. Default: getOption("repos")["CRAN"] when set, else
# https://cloud.r-project.org.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

level="${1:-check}"
case "$level" in
  demo | check) ;;
  *) echo "install-deps: unknown level '$level': use 'demo' or 'check'" >&2; exit 2 ;;
esac

have() { command -v "$1" >/dev/null 2>&1; }

need_toolchain=0
if ! have Rscript || ! have make || ! { have g++ || have c++; }; then need_toolchain=1; fi

# The R packages of DESCRIPTION's fields that R cannot find right now, or finds below the version
# DESCRIPTION requires (base packages excluded), one line "hard: ..." and one line "suggests: ...".
missing_r_pkgs() {
  have Rscript || { echo "hard: Rcpp RcppEigen"; echo "suggests:"; return; }
  Rscript --vanilla -e '
    source("tools/cran-plan.R")
    d <- read.dcf("DESCRIPTION", fields = c("Depends", "Imports", "LinkingTo", "Suggests"))[1, ]
    base <- rownames(installed.packages(priority = "base"))
    missing <- function(fields) {
      req <- do.call(rbind, lapply(fields, function(f) parse_deps(d[[f]])))
      req <- req[req$name != "R" & !req$name %in% base, , drop = FALSE]
      out <- character()
      for (i in seq_len(nrow(req))) {
        p <- req$name[[i]]
        if (!nzchar(system.file(package = p)) ||
            !meets(as.character(utils::packageVersion(p)), req$op[[i]], req$version[[i]])) out <- c(out, p)
      }
      unique(out)
    }
    hard <- missing(c("Depends", "Imports", "LinkingTo"))
    cat("hard:", hard, "\n")
    cat("suggests:", setdiff(missing("Suggests"), hard), "\n")'
}

read_missing() {
  local out
  out="$(missing_r_pkgs)"
  missing_hard="$(sed -n 's/^hard:[[:space:]]*//p' <<<"$out" | xargs)"
  missing_suggests="$(sed -n 's/^suggests:[[:space:]]*//p' <<<"$out" | xargs)"
  wanted="$missing_hard"
  [ "$level" = check ] && wanted="$missing_hard $missing_suggests"
  wanted="$(xargs <<<"$wanted")"
}

read_missing
need_pandoc=0
[ "$level" = check ] && ! have pandoc && need_pandoc=1

report_optional() {
  if [ "$level" = demo ] && [ -n "$missing_suggests" ]; then
    echo "install-deps: optional packages not installed (not needed here; make check installs them): $missing_suggests"
  fi
}

if [ -z "$wanted" ] && [ "$need_toolchain" -eq 0 ] && [ "$need_pandoc" -eq 0 ]; then
  echo "install-deps: all $level dependencies present"
  report_optional
  exit 0
fi
echo "install-deps ($level): missing R packages: ${wanted:-none};" \
     "toolchain: $([ $need_toolchain -eq 1 ] && echo missing || echo ok);" \
     "pandoc: $([ $need_pandoc -eq 1 ] && echo missing || echo ok)"

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
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  deb_missing=()
  [ "$need_toolchain" -eq 1 ] && deb_missing+=(r-base-dev)
  [ "$need_pandoc" -eq 1 ] && deb_missing+=(pandoc)
  for p in $wanted; do
    deb="r-cran-$(tr '[:upper:]' '[:lower:]' <<<"$p")"
    # only names this release knows; the rest come from CRAN below
    if apt-cache show "$deb" >/dev/null 2>&1; then deb_missing+=("$deb"); fi
  done
  if [ "${#deb_missing[@]}" -gt 0 ]; then
    echo "install-deps: apt-get install ${deb_missing[*]}"
    if ! $SUDO apt-get install -y -qq --no-install-recommends "${deb_missing[@]}"; then
      for deb in "${deb_missing[@]}"; do
        $SUDO apt-get install -y -qq --no-install-recommends "$deb" ||
          echo "install-deps: apt could not install $deb" >&2
      done
    fi
  fi
  read_missing
fi

# ---- CRAN route ------------------------------------------------------------------
if ! have Rscript; then
  echo "install-deps: R is not installed and apt-get is not usable here;" \
       "install R (>= 4.1) with a C++ compiler first (https://cloud.r-project.org)" >&2
  exit 1
fi
if [ -n "$wanted" ]; then
  # What CRAN must install: the packages wanted and what they need, recursively, that R cannot find,
  # and the installed packages below the minimum versions that those need (tools/cran-plan.R reads the
  # Depends, Imports and LinkingTo fields of CRAN's index; Debian's packages can be older than what
  # current CRAN packages require, and install.packages() alone installs only what is missing).
  # shellcheck disable=SC2086
  Rscript --vanilla -e '
    pk <- commandArgs(trailingOnly = TRUE)
    source("tools/cran-plan.R")
    repo <- Sys.getenv("CRAN_REPO")
    if (!nzchar(repo)) {
      repo <- getOption("repos")[["CRAN"]]
      if (is.null(repo) || is.na(repo) || !nzchar(repo) || repo == "@CRAN@")
        repo <- "https://cloud.r-project.org"
    }
    writable <- .libPaths()[file.access(.libPaths(), 2L) == 0L]
    lib <- if (length(writable)) writable[[1L]] else path.expand(Sys.getenv("R_LIBS_USER"))
    if (!nzchar(lib)) stop("no writable R library: set R_LIBS_USER to a directory you can write")
    dir.create(lib, recursive = TRUE, showWarnings = FALSE)
    .libPaths(c(lib, .libPaths()))
    # the wanted packages with the minimum versions DESCRIPTION gives them
    d <- read.dcf("DESCRIPTION", fields = c("Depends", "Imports", "LinkingTo", "Suggests"))[1, ]
    req <- do.call(rbind, lapply(d, parse_deps))
    req <- req[req$name %in% pk, , drop = FALSE]
    required <- paste0(req$name, ifelse(nzchar(req$op), paste0(" (", req$op, " ", req$version, ")"), ""),
                       collapse = ", ")
    ap <- utils::available.packages(repos = repo)
    plan <- cran_plan(required, ap, repo)
    message("install-deps: from ", repo, " into ", lib, ": ", length(plan), " packages")
    for (p in names(plan)) message("  ", p, ": ", plan[[p]])
    # built two at a time on a machine of several cores (the tidymodels packages are most of the time)
    ncpus <- max(1L, min(2L, parallel::detectCores(), na.rm = TRUE))
    if (length(plan)) utils::install.packages(names(plan), lib = lib, repos = repo, quiet = TRUE, Ncpus = ncpus)
    ok <- vapply(pk, requireNamespace, logical(1), quietly = TRUE)
    if (!all(ok)) stop("could not install: ", paste(pk[!ok], collapse = ", "), " (from ", repo, ")")
    # an install that failed leaves the old version in place: say so rather than fail later
    low <- names(plan)[vapply(names(plan), function(p) {
      !nzchar(system.file(package = p)) || utils::packageVersion(p) < ap[p, "Version"]
    }, logical(1))]
    if (length(low)) stop("not installed at the version ", repo, " has: ", paste(low, collapse = ", "))
  ' $wanted
fi
if [ "$level" = check ] && ! have pandoc; then
  echo "install-deps: pandoc is missing: make check builds and checks without the vignettes;" \
       "install pandoc (Debian: apt-get install pandoc; or https://pandoc.org)" >&2
fi
if ! have make || ! { have g++ || have c++; }; then
  echo "install-deps: no C++ compiler or make: install a toolchain (Debian: r-base-dev)" >&2
  exit 1
fi
read_missing
report_optional
echo "install-deps: done"
