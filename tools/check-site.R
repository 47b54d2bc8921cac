# Check a built pkgdown site in headless Chromium: every page loads, every internal link reaches an
# existing file of the site (and, for a link to an anchor of a page of the site, an element with that
# id), every internal resource (stylesheet, script) exists in the site (a file:// URL outside it, such
# as a system copy of a script, is a problem: a reader of the site does not have it), and every image
# renders (Chromium decoded it: its natural width is positive) and its file decodes (PNG, JPEG, SVG,
# GIF); screenshots of the home page and of fgseq()'s reference page. Links and resources outside the
# site (http, https, mailto) are not followed: the check runs offline.
#
# Usage: Rscript tools/check-site.R [SITE_DIR] [SHOT_DIR]
#   SITE_DIR  the built site (default docs/); SHOT_DIR where the screenshots go (default
#             site-check/ beside SITE_DIR). CHROMIUM: the browser (default: chromium on the PATH).
# Exits 1, listing every problem, when a check fails; 0 otherwise.
#
# One Chromium process opens every page in turn in a frame of a driver page (file:// pages may read
# each other with --allow-file-access-from-files), reads its DOM after its load event (links, images
# and whether each rendered), and writes what it found into the driver's DOM, which --dump-dom prints.
# A page does not load when its frame's load event does not come within 30 s (virtual time), when its
# document cannot be read, or when it has no body text; a script error while it loads is one too
# (Chromium's console log names the page).

main <- function(args) {
  site <- if (length(args) >= 1L) args[[1L]] else "docs"
  if (!dir.exists(site)) stop("check-site: no site at '", site, "': build it first (make site).")
  site <- normalizePath(site)
  shots <- if (length(args) >= 2L) args[[2L]] else file.path(dirname(site), "site-check")
  dir.create(shots, showWarnings = FALSE, recursive = TRUE)
  chromium <- Sys.getenv("CHROMIUM", unname(Sys.which("chromium")))
  if (!nzchar(chromium)) stop("check-site: Chromium not found (install chromium or set CHROMIUM).")
  pages <- list.files(site, pattern = "\\.html$", recursive = TRUE)
  if (!length(pages)) stop("check-site: no page (*.html) under '", site, "'.")
  started <- Sys.time()
  found <- open_pages(chromium, file.path(site, pages))
  problems <- c(found$problems, unlist(lapply(found$pages, check_page, site = site)))
  problems <- c(problems, screenshots(chromium, site, shots))
  cat(sprintf("check-site: %d pages, %d links and %d images checked in %.1f s\n", length(pages),
              sum(vapply(found$pages, function(p) length(p$links), 0)),
              sum(vapply(found$pages, function(p) length(p$images), 0)),
              as.numeric(difftime(Sys.time(), started, units = "secs"))))
  if (length(problems)) {
    cat("check-site: FAILED\n", paste0("  ", problems, "\n"), sep = "")
    return(1L)
  }
  cat("check-site: OK; screenshots in ", shots, "\n", sep = "")
  0L
}

file_url <- function(path) paste0("file://", utils::URLencode(normalizePath(path)))

# The file a file:// URL names (NULL for a URL outside the file system), without query or fragment.
url_file <- function(url) {
  if (!startsWith(url, "file://")) return(NULL)
  utils::URLdecode(sub("[?#].*$", "", sub("^file://", "", url)))
}

chromium_args <- c("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                   "--host-resolver-rules=\"MAP * ~NOTFOUND\"",
                   "--no-first-run", "--disable-extensions", "--hide-scrollbars")

driver_script <- '
const pages = %s;
const results = [];
function next(i) {
  if (i >= pages.length) {
    document.getElementById("result").textContent = JSON.stringify(results);
    return;
  }
  const frame = document.createElement("iframe");
  frame.style.width = "1280px"; frame.style.height = "900px";
  let done = false;
  const finish = (r) => {
    if (done) return;
    done = true; clearTimeout(timer); results.push(r); frame.remove(); next(i + 1);
  };
  const timer = setTimeout(() => finish({url: pages[i], loaded: false, error: "no load event within 30 s"}), 30000);
  frame.onload = () => {
    const r = {url: pages[i], loaded: true};
    try {
      const d = frame.contentDocument;
      r.title = d.title;
      r.text = d.body ? d.body.innerText.trim().length : 0;
      r.links = Array.from(d.querySelectorAll("a[href]"), a => a.href);
      r.resources = Array.from(d.querySelectorAll("link[rel=stylesheet][href], script[src]"), e => e.href || e.src);
      r.images = Array.from(d.querySelectorAll("img"), im => ({src: im.currentSrc || im.src,
        rendered: im.complete && im.naturalWidth > 0}));
    } catch (e) {
      r.loaded = false; r.error = "its document cannot be read: " + e;
    }
    finish(r);
  };
  frame.src = pages[i];
  document.body.appendChild(frame);
}
next(0);
'

# Every page in one Chromium process: list(pages = one list per page as the driver found it, problems).
open_pages <- function(chromium, files) {
  urls <- vapply(files, file_url, "")
  driver <- tempfile("check-site-", fileext = ".html")
  on.exit(unlink(driver))
  js <- sprintf(driver_script, jsonlite::toJSON(unname(urls)))
  writeLines(c("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>check-site</title></head><body>",
               "<pre id=\"result\"></pre><script>", js, "</script></body></html>"), driver)
  log <- tempfile("check-site-", fileext = ".log")
  on.exit(unlink(log), add = TRUE)
  profile <- tempfile("check-site-profile-")
  on.exit(unlink(profile, recursive = TRUE), add = TRUE)
  out <- suppressWarnings(system2(chromium, c(chromium_args, paste0("--user-data-dir=", shQuote(profile)),
                                              "--allow-file-access-from-files",
                                              "--enable-logging=stderr", "--v=0",
                                              sprintf("--virtual-time-budget=%d", 60000L * length(urls)),
                                              "--dump-dom", shQuote(file_url(driver))),
                                  stdout = TRUE, stderr = log))
  dom <- if (length(out)) xml2::read_html(paste(c(out, ""), collapse = "\n"))
  json <- if (!is.null(dom)) xml2::xml_text(xml2::xml_find_first(dom, "//pre[@id='result']")) else NA
  if (is.na(json) || !nzchar(json)) {
    return(list(pages = list(), problems = "Chromium did not finish opening the pages (no result from the driver page)"))
  }
  pages <- jsonlite::fromJSON(json, simplifyVector = FALSE)
  # script errors, as Chromium's console log reports them with the page's URL
  console <- readLines(log, warn = FALSE)
  uncaught <- grep("Uncaught", console, value = TRUE)
  problems <- character(0)
  for (p in pages) {
    hit <- uncaught[vapply(uncaught, function(l) grepl(p$url, l, fixed = TRUE), TRUE)]
    if (length(hit)) {
      problems <- c(problems, paste0(sub("^file://[^#?]*/", "", p$url), ": does not load (a script error: ",
                                     trimws(sub("^.*\\] ", "", hit[1L])), ")"))
    }
  }
  list(pages = pages, problems = problems)
}

# The problems of one page (character; none: empty).
check_page <- function(p, site) {
  name <- sub(paste0("^file://", utils::URLencode(site), "/"), "", p$url)
  if (!isTRUE(p$loaded)) return(paste0(name, ": does not load (", p$error, ")"))
  problems <- character(0)
  if (p$text == 0) problems <- c(problems, paste0(name, ": does not load (no text in its body)"))
  outside <- function(target) !startsWith(target, paste0(site, "/"))
  for (link in unlist(p$links)) {
    target <- url_file(link)
    if (is.null(target)) next  # a link outside the site (http, mailto, ...)
    if (outside(target)) {
      problems <- c(problems, paste0(name, ": link to a file outside the site, which a reader does not have: ", link))
      next
    }
    if (dir.exists(target)) target <- file.path(target, "index.html")
    if (!file.exists(target)) {
      problems <- c(problems, paste0(name, ": broken link to ", link))
      next
    }
    anchor <- if (grepl("#", link, fixed = TRUE)) utils::URLdecode(sub("^[^#]*#", "", link)) else ""
    if (nzchar(anchor) && grepl("\\.html$", target) && startsWith(normalizePath(target), site) &&
        !anchor_exists(target, anchor)) {
      problems <- c(problems, paste0(name, ": broken link to ", link, " (no element with id \"", anchor, "\")"))
    }
  }
  for (res in unlist(p$resources)) {
    target <- url_file(res)
    if (is.null(target)) next
    if (outside(target)) {
      problems <- c(problems, paste0(name, ": resource outside the site, which a reader does not have: ", res))
    } else if (!file.exists(target)) {
      problems <- c(problems, paste0(name, ": missing resource ", res))
    }
  }
  for (im in p$images) {
    file <- url_file(im$src)
    why <- if (!is.null(file) && outside(file)) "is outside the site, which a reader does not have" else image_problem(im$src)
    if (!isTRUE(im$rendered) && is.null(why)) why <- "Chromium did not render it"
    if (!is.null(why)) problems <- c(problems, paste0(name, ": image ", substr(im$src, 1L, 120L), " ", why))
  }
  problems
}

anchor_cache <- new.env()
anchor_exists <- function(file, anchor) {
  ids <- anchor_cache[[file]]
  if (is.null(ids)) {
    doc <- xml2::read_html(file)
    ids <- c(xml2::xml_attr(xml2::xml_find_all(doc, "//*[@id]"), "id"),
             xml2::xml_attr(xml2::xml_find_all(doc, "//a[@name]"), "name"))
    anchor_cache[[file]] <- ids
  }
  anchor %in% ids
}

# NULL when the image's file (or data: URI) decodes, else what is wrong.
image_problem <- function(src) {
  if (startsWith(src, "data:")) {
    type <- sub("^data:([^;,]*).*$", "\\1", src)
    bytes <- tryCatch(base64enc::base64decode(sub("^[^,]*,", "", src)), error = function(e) raw(0))
    return(decode_problem(bytes, type))
  }
  file <- url_file(src)
  if (is.null(file)) return(NULL)  # an image outside the site
  if (!file.exists(file)) return("is missing")
  ext <- tolower(tools::file_ext(file))
  type <- switch(ext, png = "image/png", jpg = , jpeg = "image/jpeg", svg = "image/svg+xml", gif = "image/gif", ext)
  decode_problem(readBin(file, "raw", file.size(file)), type)
}

decode_problem <- function(bytes, type) {
  if (!length(bytes)) return("is empty")
  ok <- tryCatch(switch(type,
    "image/png" = { png::readPNG(bytes); TRUE },
    "image/jpeg" = { jpeg::readJPEG(bytes); TRUE },
    "image/svg+xml" = xml2::xml_name(xml2::read_xml(rawToChar(bytes))) == "svg",
    "image/gif" = identical(rawToChar(bytes[1:4]), "GIF8"),
    TRUE), error = function(e) FALSE)
  if (isTRUE(ok)) NULL else paste0("does not decode as ", type)
}

# Screenshots of the home page and of fgseq()'s reference page, each checked to be a PNG that is not
# one colour.
screenshots <- function(chromium, site, shots) {
  targets <- c(home = "index.html", fgseq = "reference/fgseq.html")
  problems <- character(0)
  for (n in names(targets)) {
    page <- file.path(site, targets[[n]])
    if (!file.exists(page)) {
      problems <- c(problems, paste0(targets[[n]], ": missing (no screenshot)"))
      next
    }
    shot <- file.path(normalizePath(shots), paste0(n, ".png"))
    unlink(shot)
    profile <- tempfile("check-site-profile-")
    suppressWarnings(system2(chromium, c(chromium_args, paste0("--user-data-dir=", shQuote(profile)),
                                         "--window-size=1280,1600", "--virtual-time-budget=10000",
                                         paste0("--screenshot=", shQuote(shot)), shQuote(file_url(page))),
                             stdout = FALSE, stderr = FALSE))
    unlink(profile, recursive = TRUE)
    img <- if (file.exists(shot)) tryCatch(png::readPNG(shot), error = function(e) NULL)
    if (is.null(img)) {
      problems <- c(problems, paste0(targets[[n]], ": no screenshot"))
    } else if (length(unique(as.vector(img[, , 1:3]))) < 3L) {
      problems <- c(problems, paste0(targets[[n]], ": the screenshot is blank"))
    }
  }
  problems
}

if (sys.nframe() == 0L) quit(status = main(commandArgs(trailingOnly = TRUE)), save = "no")
