# The test of tools/check-site.R: a tiny site that passes, then the same site with one deliberately
# broken page (a script error, a link to a missing page, a link to a missing anchor, an image that
# does not decode, a missing image, a script outside the site), each of which the checker must report,
# exiting 1.
#
# Usage: Rscript tools/test-check-site.R (from the repository root; needs Chromium as check-site.R).

site <- file.path(tempfile("fake-site-"), "docs")
dir.create(file.path(site, "reference"), recursive = TRUE)
page <- function(file, title, body) {
  writeLines(c("<!DOCTYPE html>", paste0("<html><head><meta charset=\"utf-8\"><title>", title, "</title></head>"),
               "<body>", body, "</body></html>"), file.path(site, file))
}
set.seed(1)
png::writePNG(array(runif(20 * 20 * 3), c(20, 20, 3)), file.path(site, "figure.png"))
page("index.html", "home", c("<h1>Home</h1>", "<a href=\"reference/fgseq.html#arguments\">fgseq()</a>",
                            "<a href=\"reference/\">Reference</a>", "<img src=\"figure.png\" alt=\"a figure\">"))
page("reference/fgseq.html", "fgseq", c("<h1>fgseq()</h1>", "<h2 id=\"arguments\">Arguments</h2>",
                                       "<a href=\"../index.html\">home</a>"))
page("reference/index.html", "reference", "<a href=\"fgseq.html\">fgseq()</a>")

run <- function() {
  out <- suppressWarnings(system2("Rscript", c("tools/check-site.R", shQuote(site), shQuote(file.path(dirname(site), "shots"))),
                                  stdout = TRUE, stderr = TRUE))
  list(status = if (is.null(attr(out, "status"))) 0L else attr(out, "status"), out = out)
}
fail <- function(...) {
  cat("test-check-site: FAILED:", ..., "\n")
  quit(status = 1, save = "no")
}

good <- run()
if (good$status != 0L) fail("the good site did not pass:\n", paste(good$out, collapse = "\n"))
for (shot in c("home.png", "fgseq.png")) {
  if (!file.exists(file.path(dirname(site), "shots", shot))) fail("no screenshot", shot)
}

writeBin(as.raw(seq_len(64)), file.path(site, "corrupt.png"))
page("broken.html", "broken", c("<p>A deliberately broken page.</p>", "<a href=\"missing.html\">gone</a>",
                                "<a href=\"reference/fgseq.html#no-such-section\">nowhere</a>",
                                "<img src=\"corrupt.png\">", "<img src=\"absent.png\">",
                                "<script src=\"file:///usr/share/no-such-dir/lib.js\"></script>",
                                "<script>notAFunction();</script>"))
bad <- run()
if (bad$status != 1L) fail("the broken site passed (status ", bad$status, "):\n", paste(bad$out, collapse = "\n"))
expected <- c("broken.html: does not load [(]a script error", "broken.html: broken link to .*missing.html",
              "broken.html: broken link to .*no-such-section", "broken.html: image .*corrupt.png does not decode",
              "broken.html: image .*absent.png is missing", "broken.html: resource outside the site")
for (e in expected) if (!any(grepl(e, bad$out))) fail("no line matching '", e, "' in:\n", paste(bad$out, collapse = "\n"))
if (any(grepl("^  (index|reference/)", bad$out))) fail("a good page was reported:\n", paste(bad$out, collapse = "\n"))
cat("test-check-site: OK (the good site passes; the broken page's six problems are reported)\n")
