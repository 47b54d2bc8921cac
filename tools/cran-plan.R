# What to install from CRAN so that the given packages load at the versions required: each required
# package that R cannot find or whose installed version is below its minimum, every package those
# need (Depends, Imports, LinkingTo of CRAN's index, recursively) that R cannot find, and every
# installed package whose version is below the minimum that a package being installed requires
# ("rlang (>= 1.1.0)"), with the dependencies of those upgrades in turn. An installed package that
# meets every minimum stays as it is (its own dependencies are not revisited), so nothing is upgraded
# that does not have to be.
#
# Sourced by tools/install-deps.sh, which calls cran_plan(); run alone it prints the plan:
#   Rscript --vanilla tools/cran-plan.R REPO 'PKG (>= VERSION)' PKG ...
# cran_plan() returns a named character vector, package -> why ("missing", or "upgrade <installed> ->
# <CRAN> (<who> needs <name (>= version)>)"), in an order install.packages() can take as it is.
# It stops when a package is not on CRAN, when CRAN's version is below a minimum, or when this R is
# older than a package requires.

# "a (>= 1.0), b,\n c" -> data.frame(name, op, version)
parse_deps <- function(field) {
  if (is.na(field) || !nzchar(trimws(field))) {
    return(data.frame(name = character(), op = character(), version = character()))
  }
  parts <- trimws(strsplit(field, ",", fixed = TRUE)[[1L]])
  parts <- parts[nzchar(parts)]
  name <- trimws(sub("\\(.*$", "", parts))
  has <- grepl("\\(", parts)
  op <- ifelse(has, sub("^[^(]*\\(\\s*([<>=!]+).*$", "\\1", parts), "")
  version <- ifelse(has, trimws(sub("^[^(]*\\(\\s*[<>=!]+\\s*([^)]*)\\).*$", "\\1", parts)), "")
  data.frame(name = name, op = op, version = version)
}

meets <- function(have, op, version) {
  if (!nzchar(op)) return(TRUE)
  cmp <- utils::compareVersion(have, version)
  switch(op, ">=" = cmp >= 0, ">" = cmp > 0, "==" = cmp == 0, "<=" = cmp <= 0, "<" = cmp < 0,
         "!=" = cmp != 0, TRUE)
}

# required: a dependency field ("a (>= 1.0), b"); ap: available.packages() of the repository.
cran_plan <- function(required, ap, repo = "CRAN") {
  # the copy R loads: the first library of .libPaths() that holds the package
  ip <- utils::installed.packages()
  ip <- ip[!duplicated(ip[, "Package"]), , drop = FALSE]
  installed <- stats::setNames(ip[, "Version"], ip[, "Package"])
  base <- rownames(utils::installed.packages(priority = "base"))
  r_version <- as.character(getRversion())
  plan <- character()             # name -> why
  queue <- character()
  add <- function(name, why) {
    if (!name %in% rownames(ap)) stop("cran-plan: ", name, " is needed but is not on ", repo, call. = FALSE)
    plan[[name]] <<- why
    queue <<- c(queue, name)
  }
  # one requirement `d (op v)` of `who`
  require_one <- function(who, d, op, v) {
    need <- if (nzchar(op)) paste0(d, " (", op, " ", v, ")") else d
    if (d == "R") {
      if (!meets(r_version, op, v)) stop("cran-plan: ", who, " needs ", need, "; this is R ", r_version, call. = FALSE)
      return()
    }
    if (d %in% base) return()
    if (d %in% names(plan)) {
      if (!meets(ap[d, "Version"], op, v))
        stop("cran-plan: ", who, " needs ", need, " but ", repo, " has ", d, " ", ap[d, "Version"], call. = FALSE)
      return()
    }
    if (!d %in% names(installed)) {
      add(d, "missing")
    } else if (!meets(installed[[d]], op, v)) {
      if (!d %in% rownames(ap) || !meets(ap[d, "Version"], op, v))
        stop("cran-plan: ", who, " needs ", need, "; installed: ", installed[[d]], ", and ", repo,
             " has no such version", call. = FALSE)
      add(d, paste0("upgrade ", installed[[d]], " -> ", ap[d, "Version"], " (", who, " needs ", need, ")"))
    }
  }
  roots <- parse_deps(required)
  for (i in seq_len(nrow(roots))) require_one("DESCRIPTION", roots$name[[i]], roots$op[[i]], roots$version[[i]])
  while (length(queue)) {
    p <- queue[[1L]]
    queue <- queue[-1L]
    deps <- do.call(rbind, lapply(c("Depends", "Imports", "LinkingTo"), function(f) parse_deps(ap[p, f])))
    for (i in seq_len(nrow(deps))) require_one(p, deps$name[[i]], deps$op[[i]], deps$version[[i]])
  }
  plan
}

if (sys.nframe() == 0L) {
  args <- commandArgs(trailingOnly = TRUE)
  repo <- args[[1L]]
  plan <- cran_plan(paste(args[-1L], collapse = ", "), utils::available.packages(repos = repo), repo)
  if (length(plan)) cat(paste0(names(plan), "\t", plan), sep = "\n")
}
