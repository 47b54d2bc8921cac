## The precomputed run of vignette("paper"): the evaluation of the paper's methods over 6 random
## splits of Heart, Pima, the Parkinson's speech data and the Yahoo-like design with groups of 5, 10,
## 15 and 20 features (the chunk `run`). Building the vignette does not run that chunk; it reads what
## this script wrote.
##
## Usage, from the package root, with fgseq and its suggested packages (mlbench, modeldata, rmarkdown)
## installed:
##   Rscript data-raw/paper-experiments.R [OUTDIR]     OUTDIR defaults to inst/extdata
##
## It knits vignettes/paper.Rmd with the environment variable FGSEQ_PAPER_OUT set to OUTDIR: the chunk
## then runs and writes, to OUTDIR,
##   paper-scores.csv          one row per data set, split, metric (r2, accuracy, ndcg) and method: the
##                             test timeliness (linear and step), the curve's total cost, the stopping cost
##   paper-curves.csv          the test curves of the first split (cost, value) of every method and metric
##   paper-run-evaluation.csv  how long the evaluation took, the load, the date, fgseq's version, the ridge
##                             constant and alpha chosen for the speech and Yahoo-like data
## and the rest of the vignette reads them back, as it does from the installed inst/extdata. The run
## took 17 minutes on 2 cores under a 1-minute load average of about 6 (the evaluation 975 s, most of
## it in the Yahoo-like designs: one split of s = 5 took 48 s, of s = 10 22 s, of the speech data 15 s).
args <- commandArgs(trailingOnly = TRUE)
out_dir <- if (length(args)) args[[1L]] else file.path("inst", "extdata")
if (!file.exists(file.path("vignettes", "paper.Rmd"))) {
  stop("run this script from the package root (where vignettes/paper.Rmd is)", call. = FALSE)
}
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
Sys.setenv(FGSEQ_PAPER_OUT = normalizePath(out_dir))
html <- tempfile(fileext = ".html")
elapsed <- system.time(
  rmarkdown::render(file.path("vignettes", "paper.Rmd"), output_file = basename(html),
                    output_dir = dirname(html), intermediates_dir = tempdir(), quiet = TRUE)
)[["elapsed"]]
cat(sprintf("knitted vignettes/paper.Rmd in %.0f s; wrote to %s:\n", elapsed, out_dir))
print(file.info(list.files(out_dir, pattern = "^paper-.*[.]csv$", full.names = TRUE))["size"])
