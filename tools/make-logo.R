# Draws the package's logo (man/figures/logo.png, used by the pkgdown site) and the site's favicons
# (pkgdown/favicon/: pkgdown would otherwise fetch them from a web service): a step curve, the
# anytime curve of a sequence, on a hexagon. Usage: Rscript tools/make-logo.R (from the repository root).
draw_logo <- function(file, size, text = TRUE) {
  grDevices::png(file, width = size, height = size, bg = "transparent", type = "cairo")
  on.exit(grDevices::dev.off())
  graphics::par(mar = c(0, 0, 0, 0))
  graphics::plot.new()
  graphics::plot.window(c(0, 1), c(0, 1))
  a <- seq(0, 2 * pi, length.out = 7) + pi / 6
  graphics::polygon(0.5 + 0.47 * cos(a), 0.5 + 0.47 * sin(a), col = "#1f4e79", border = "#0d2a45",
                    lwd = max(1, size / 60))
  graphics::lines(c(0.2, 0.32, 0.32, 0.45, 0.45, 0.62, 0.62, 0.8), c(0.3, 0.3, 0.48, 0.48, 0.58, 0.58, 0.64, 0.64),
                  col = "#f2c14e", lwd = max(1.5, size / 34))
  if (text) graphics::text(0.5, 0.79, "fgseq", col = "white", cex = size / 92, font = 2)
}
draw_logo("man/figures/logo.png", 240)
dir.create("pkgdown/favicon", showWarnings = FALSE, recursive = TRUE)
icons <- c("favicon-16x16.png" = 16, "favicon-32x32.png" = 32, "apple-touch-icon.png" = 180,
           "apple-touch-icon-120x120.png" = 120, "apple-touch-icon-76x76.png" = 76, "apple-touch-icon-60x60.png" = 60)
for (f in names(icons)) draw_logo(file.path("pkgdown/favicon", f), icons[[f]], text = icons[[f]] >= 120)
