# Reading back what a plot method drew: the calls of base graphics recorded on the display list of an
# off-screen pdf device, each with its C entry point (`name`, for example "C_text" or "C_plot_window")
# and its arguments, the graphical state (par("usr"), par("xlog"), par("pin")) and the number of pages.

# Draw with `draw()` on a fresh recording device of `width` x `height` inches; returns list(value (what
# draw() returned), usr, xlog, pin, calls (the last page's), pages).
drawn <- function(draw, width = 7, height = 7) {
  file <- tempfile(fileext = ".pdf")
  grDevices::pdf(file, width = width, height = height, compress = FALSE)
  dev <- grDevices::dev.cur()
  grDevices::dev.control("enable")
  value <- draw()
  out <- list(value = value, usr = graphics::par("usr"), xlog = graphics::par("xlog"), pin = graphics::par("pin"),
              calls = recorded_calls())
  grDevices::dev.off(dev)
  pdf <- rawToChar(readBin(file, "raw", file.size(file)), multiple = FALSE)
  unlink(file)
  out$pages <- length(gregexpr("/Type /Page\\b", useBytes = TRUE, gsub("/Type /Pages", "", pdf, useBytes = TRUE))[[1L]])
  out
}

# The recorded calls of the current page: a list of list(name, args).
recorded_calls <- function() {
  dl <- grDevices::recordPlot()[[1L]]
  lapply(dl, function(e) {
    a <- as.list(e[[2L]])
    list(name = if (is.list(a[[1L]])) a[[1L]]$name else NA_character_, args = a[-1L])
  })
}

# Every character string given to the recorded calls (axis labels, titles, text).
drawn_strings <- function(d) {
  unlist(lapply(d$calls, function(cl) Filter(is.character, cl$args)), use.names = FALSE)
}

# The recorded calls of one entry point (for example "C_text", "C_axis", "C_plot_window").
calls_named <- function(d, name) Filter(function(cl) identical(cl$name, name), d$calls)
