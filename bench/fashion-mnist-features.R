## Fashion-MNIST's reader, its 9 priced feature groups and their costs, shared by
## bench/bench-fashion-mnist.R and bench/bench-adaptive.R (sourced, not part of the package; functions
## only: sourcing it reads and computes nothing). Scripts run from the package root and source it as
## source("bench/fashion-mnist-features.R").
##
## fashion_read(files): the four idx files (training images, training labels, test images, test
## labels, gzipped) as list(img_train, lab_train, img_test, lab_test, classes): the images as matrices
## of one row per image, 784 pixels scaled to [0, 1] (pixel k is row (k - 1) %/% 28, column
## (k - 1) %% 28 of the image), the labels as factors with the 10 class names as levels.
##
## fashion_extractors(img_pca): the named list of extractor functions, each from a matrix of raw pixels
## (one row per image) to the group's columns; every extractor starts from the raw pixels (a group that
## shares work with another, e.g. the two gradient histograms, pays for it again). img_pca: the
## training images the principal components are learned from (once, offline, not part of any cost).
##   blocks7   7 x 7 means of 4 x 4 pixel blocks (49)
##   blocks14  14 x 14 means of 2 x 2 pixel blocks (196)
##   rows, cols  the 28 row sums and the 28 column sums (projections)
##   moments   ink mass, centroid, spreads and the row-column covariance (6)
##   hog2      gradient-orientation histograms, 8 orientations, 2 x 2 cells of 14 pixels (32)
##   hog4      the same on 4 x 4 cells of 7 pixels (128)
##   pca10     projections on the first 10 principal components of img_pca (10)
##   pca50     projections on components 11 to 50 (40)
##
## fashion_group_costs(extract, img_test): the cost of each group, its measured extraction time per
## image on this machine in microseconds: the CPU time (user + system) of extracting the group from
## img_test (best of 3), divided by the number of images. Returns list(features = the named list of
## the groups' columns on img_test (from the last timed run), cost = the named costs).

fashion_read <- function(files) {
  read_idx <- function(file) {
    con <- gzfile(file, "rb")
    on.exit(close(con))
    magic <- readBin(con, "integer", 1L, size = 4L, endian = "big")
    dims <- readBin(con, "integer", magic %% 256L, size = 4L, endian = "big")
    v <- readBin(con, "integer", prod(dims), size = 1L, signed = FALSE)
    if (length(dims) == 1L) v else matrix(v, dims[1L], prod(dims[-1L]), byrow = TRUE)
  }
  classes <- c("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot")
  list(img_train = read_idx(files[1L]) / 255,
       lab_train = factor(classes[read_idx(files[2L]) + 1L], levels = classes),
       img_test = read_idx(files[3L]) / 255,
       lab_test = factor(classes[read_idx(files[4L]) + 1L], levels = classes),
       classes = classes)
}

fashion_extractors <- function(img_pca) {
  pix_r <- (seq_len(784) - 1L) %/% 28L
  pix_c <- (seq_len(784) - 1L) %% 28L
  pool <- function(size) {  # 784 x cells: the mean over size x size blocks
    cell <- (pix_r %/% size) * (28L %/% size) + pix_c %/% size + 1L
    m <- matrix(0, 784, max(cell))
    m[cbind(seq_len(784), cell)] <- 1 / size^2
    m
  }
  P4 <- pool(4L)
  P2 <- pool(2L)
  P7 <- pool(7L) * 49
  P14 <- pool(14L) * 196
  Prow <- outer(pix_r, 0:27, "==") + 0
  Pcol <- outer(pix_c, 0:27, "==") + 0
  # the first 50 principal components of the training images, learned once, offline (not part of any
  # cost): the eigenvectors of their covariance matrix (784 x 784), as prcomp() finds them up to sign,
  # without the singular value decomposition of all the images
  pca_center <- colMeans(img_pca)
  pca_rotation <- eigen(stats::cov(img_pca), symmetric = TRUE)$vectors[, 1:50]
  rm(img_pca)  # the extractors' environment keeps only what they use
  hog <- function(X, cells) {
    left <- c(1L, seq_len(783))  # neighbours, clamped at the image border
    right <- c(2:784, 784L)
    up <- ifelse(pix_r == 0L, seq_len(784), seq_len(784) - 28L)
    down <- ifelse(pix_r == 27L, seq_len(784), seq_len(784) + 28L)
    right[pix_c == 27L] <- which(pix_c == 27L)
    left[pix_c == 0L] <- which(pix_c == 0L)
    dx <- X[, right] - X[, left]
    dy <- X[, down] - X[, up]
    mag <- sqrt(dx^2 + dy^2)
    bin <- pmin(floor((atan2(dy, dx) %% pi) / (pi / 8)), 7)
    do.call(cbind, lapply(0:7, function(b) (mag * (bin == b)) %*% cells))
  }
  list(
    blocks7 = function(X) X %*% P4,
    blocks14 = function(X) X %*% P2,
    rows = function(X) X %*% Prow,
    cols = function(X) X %*% Pcol,
    moments = function(X) {
      m <- rowSums(X) + 1e-12
      cr <- drop(X %*% pix_r) / m
      cc <- drop(X %*% pix_c) / m
      vr <- drop(X %*% pix_r^2) / m - cr^2
      vc <- drop(X %*% pix_c^2) / m - cc^2
      cv <- drop(X %*% (pix_r * pix_c)) / m - cr * cc
      cbind(m, cr, cc, sqrt(pmax(vr, 0)), sqrt(pmax(vc, 0)), cv)
    },
    hog2 = function(X) hog(X, P14),
    hog4 = function(X) hog(X, P7),
    pca10 = function(X) sweep(X, 2L, pca_center) %*% pca_rotation[, 1:10],
    pca50 = function(X) sweep(X, 2L, pca_center) %*% pca_rotation[, 11:50])
}

fashion_group_costs <- function(extract, img_test) {
  cpu <- function(expr) {
    t <- system.time(expr, gcFirst = TRUE)
    t[["user.self"]] + t[["sys.self"]]
  }
  features <- list()
  cost <- numeric(0)
  for (g in names(extract)) {
    times <- numeric(3L)
    for (k in 1:3) times[k] <- cpu(f <- extract[[g]](img_test))
    features[[g]] <- f
    cost[g] <- 1e6 * min(times) / nrow(img_test)
  }
  list(features = features, cost = cost)
}
