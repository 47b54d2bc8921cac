# Plain-R reference of the Greedy Miser (Xu, Weinberger & Chapelle 2012, equation 5, Algorithm 1),
# written from the paper and the documented rules, by brute force: every split's gain is the decrease
# of the half squared error of the gradient computed from the two sides' means (not from running sums).
# Observation weights w weigh every sum: the half squared errors, the means (leaf values), the bins'
# quantiles (a row of weight k as k rows), the loss and the starting constants; min_node counts rows.

# Candidate thresholds of a column within a node: midpoints between consecutive distinct values.
ref_midpoints <- function(v) {
  u <- sort(unique(v))
  if (length(u) < 2L) return(numeric(0))
  a <- u[-length(u)]
  b <- u[-1L]
  m <- a + 0.5 * (b - a)
  ifelse(m < b, m, a)
}

# Quantile bins of a column, as documented in ?miser: one bin per distinct value when there are at most
# max_bin of them; otherwise distinct values in increasing order, a bin closed as soon as it holds at
# least (weight left) / (bins left) of the weight (rows: weight 1 each), or when the values left only
# suffice for one bin each. Returns list(lo, hi): the smallest and largest value of each bin.
ref_bins <- function(v, max_bin, w = rep(1, length(v))) {
  u <- sort(unique(v))
  cnt <- vapply(u, function(a) sum(w[v == a]), numeric(1))
  D <- length(u)
  if (D <= max_bin) return(list(lo = u, hi = u))
  lo <- hi <- numeric(0)
  rest <- sum(w)
  left <- max_bin
  in_bin <- 0
  first <- 1L
  for (t in seq_len(D)) {
    in_bin <- in_bin + cnt[t]
    if (t == D || (left > 1 && (in_bin * left >= rest || D - t < left))) {
      lo <- c(lo, u[first])
      hi <- c(hi, u[t])
      rest <- rest - in_bin
      left <- left - 1
      in_bin <- 0
      first <- t + 1L
    }
  }
  list(lo = lo, hi = hi)
}

# Candidate thresholds of a binned column within a node: between consecutive non-empty bins of the
# node, the midpoint of the left bin's largest and the right bin's smallest training value.
ref_bin_midpoints <- function(v, bins) {
  k <- sort(unique(findInterval(v, bins$hi, left.open = TRUE) + 1L))
  if (length(k) < 2L) return(numeric(0))
  a <- bins$hi[k[-length(k)]]
  b <- bins$lo[k[-1L]]
  m <- a + 0.5 * (b - a)
  ifelse(m < b, m, a)
}

half_sse <- function(r, w = rep(1, length(r))) 0.5 * sum(w * (r - sum(w * r) / sum(w))^2)

# The best split of one column by brute force: list(gain, threshold). bins: NULL (exact candidates) or
# the column's ref_bins(); w: the rows' weights.
ref_column_split <- function(v, r, min_node, bins = NULL, w = rep(1, length(r)), min_weight = 0) {
  thr <- if (is.null(bins)) ref_midpoints(v) else ref_bin_midpoints(v, bins)
  if (!length(thr)) return(list(gain = -Inf, threshold = NA_real_))
  total <- half_sse(r, w)
  gains <- vapply(thr, function(t) {
    left <- v <= t
    if (sum(left) < min_node || sum(!left) < min_node) return(-Inf)
    if (!(sum(w[left]) > min_weight && sum(w[!left]) > min_weight)) return(-Inf)
    total - half_sse(r[left], w[left]) - half_sse(r[!left], w[!left])
  }, numeric(1))
  # by increasing threshold, a later one replaces the best only when its gain is larger by more than a
  # relative 1e-10 (the smallest of tied thresholds wins)
  k <- NA_integer_
  for (i in seq_along(gains)) {
    if (gains[i] > -Inf && (is.na(k) || gains[i] > gains[k] + 1e-10 * abs(gains[k]))) k <- i
  }
  if (is.na(k)) return(list(gain = -Inf, threshold = NA_real_))
  list(gain = gains[k], threshold = thr[k])
}

# One tree grown level by level, nodes left to right. charge(j, used) is the cost term of column j
# given the groups used so far in this tree; zero: gains at most this count as 0; w: the rows' weights.
# Returns a data frame of nodes numbered in creation order (feature 0 at a leaf, left/right 0).
ref_tree <- function(x, r, depth, min_node, lambda, charge, group_index, zero, bins = NULL, w = rep(1, length(r)),
                     min_weight = 0) {
  nodes <- list(list(rows = seq_along(r), feature = 0L, threshold = NA_real_, left = 0L, right = 0L))
  used <- integer(0)
  level <- 1L
  for (d in seq_len(depth)) {
    nxt <- integer(0)
    for (v in level) {
      rows <- nodes[[v]]$rows
      if (length(rows) < 2L * min_node) next
      splits <- lapply(seq_len(ncol(x)), function(j) ref_column_split(x[rows, j], r[rows], min_node, bins[[j]], w[rows],
                                                                     min_weight))
      gain <- vapply(splits, `[[`, numeric(1), "gain")
      pen <- gain - lambda * vapply(seq_len(ncol(x)), charge, numeric(1), used = used)
      ok <- gain > zero
      if (!any(ok)) next
      best <- max(pen[ok])
      if (!(best > 0)) next
      j <- which(ok & pen >= best - 1e-10 * abs(best))[1L]
      thr <- splits[[j]]$threshold
      left <- rows[x[rows, j] <= thr]
      right <- rows[x[rows, j] > thr]
      k <- length(nodes)
      nodes[[v]]$feature <- j
      nodes[[v]]$threshold <- thr
      nodes[[v]]$left <- k + 1L
      nodes[[v]]$right <- k + 2L
      nodes[[k + 1L]] <- list(rows = left, feature = 0L, threshold = NA_real_, left = 0L, right = 0L)
      nodes[[k + 2L]] <- list(rows = right, feature = 0L, threshold = NA_real_, left = 0L, right = 0L)
      used <- union(used, group_index[j])
      nxt <- c(nxt, k + 1L, k + 2L)
    }
    level <- nxt
    if (!length(level)) break
  }
  data.frame(feature = vapply(nodes, `[[`, integer(1), "feature"),
             threshold = vapply(nodes, `[[`, numeric(1), "threshold"),
             left = vapply(nodes, `[[`, integer(1), "left"),
             right = vapply(nodes, `[[`, integer(1), "right"),
             value = vapply(nodes, function(nd) sum(w[nd$rows] * r[nd$rows]) / sum(w[nd$rows]), numeric(1)))
}

# Output of a reference tree for every row of x.
ref_tree_predict <- function(tree, x) {
  vapply(seq_len(nrow(x)), function(i) {
    v <- 1L
    while (tree$feature[v] > 0L) v <- if (x[i, tree$feature[v]] <= tree$threshold[v]) tree$left[v] else tree$right[v]
    tree$value[v]
  }, numeric(1))
}

# Stage-wise regression with the miser impurity. family: "gaussian" (y numeric), "binomial" (y 0/1),
# "multinomial" (y a factor). lambda_scaled is the lambda' of equation (5); cost one per group (with
# `needs`, group -> measurement names, one per measurement: a split is charged the cost of its group's
# measurements not yet paid); group one label per column; max_bin: NULL (exact search) or the bins of
# the histogram search; weights: NULL or one positive weight per row; offset: NULL, a vector (one
# starting score per row) or an n x P matrix, added to the starting constants (the best constants given
# the offset: glm()'s intercept-only fit; for multinomial, Newton's method in plain R); newoffset: the same for
# newx. Returns the trees (in order; class by class within an iteration), the predictor H (n x P) after
# every iteration on x and on newx, the weighted mean loss, the groups first used by each tree, the
# starting constants and s0 = 1/2 sum_i w_i ||r_i||^2 / P of the first gradient. newton = TRUE
# (binomial, multinomial; the default, as miser()'s): the trees of miser(leaves = "newton"); FALSE: of
# leaves = "gradient".
ref_miser <- function(x, y, family = "gaussian", n_trees = 5, depth = 2, eta = 0.1, min_node = 1,
                      lambda_scaled = 0, cost = rep(1, ncol(x)), group = seq_len(ncol(x)),
                      paid = "after_tree", newx = x, needs = NULL, max_bin = NULL, weights = NULL,
                      offset = NULL, newoffset = NULL, newton = TRUE) {
  w <- if (is.null(weights)) rep(1, nrow(x)) else weights
  bins <- if (is.null(max_bin)) NULL else lapply(seq_len(ncol(x)), function(j) ref_bins(x[, j], max_bin, w))
  labels <- unique(group)
  gi <- match(group, labels)
  meas <- ref_measurements(as.character(labels), cost, needs)   # helper-reference.R
  m_of <- lapply(meas$needs, match, names(meas$mcost))          # measurement indices of each group
  Y <- switch(family, gaussian = matrix(y), binomial = matrix(as.numeric(y)),
              multinomial = outer(as.integer(y), seq_len(nlevels(y)), "==") + 0)
  P <- ncol(Y)
  O <- if (is.null(offset)) matrix(0, nrow(x), P) else matrix(offset, nrow(x), P)
  Onew <- if (is.null(newoffset)) matrix(0, nrow(newx), P) else matrix(newoffset, nrow(newx), P)
  softmax <- function(H) exp(H - apply(H, 1, max)) / rowSums(exp(H - apply(H, 1, max)))
  loss <- function(H) sum(w * switch(family,
    gaussian = 0.5 * rowSums((Y - H)^2),
    binomial = log1p(exp(H)) - Y * H,
    multinomial = log(rowSums(exp(H))) - rowSums(Y * H))) / sum(w)
  ybar <- colSums(w * Y) / sum(w)
  init <- switch(family, gaussian = ybar, binomial = log(ybar / (1 - ybar)),
                 multinomial = log(ybar) - mean(log(ybar)))
  if (!is.null(offset)) {
    init <- switch(family,
      gaussian = ,
      binomial = unname(coef(suppressWarnings(glm(Y[, 1] ~ 1, family = family, weights = w, offset = O[, 1])))),
      multinomial = {  # Newton's method on the intercepts of classes 2..P (class 1's fixed at 0)
        a <- init[-1L] - init[1L]
        for (it in 1:50) {
          mu <- softmax(sweep(O, 2L, c(0, a), "+"))[, -1L, drop = FALSE]
          g <- colSums(w * (mu - Y[, -1L, drop = FALSE]))
          h <- diag(colSums(w * mu), P - 1L) - crossprod(mu * sqrt(w))
          a <- a - solve(h, g)
        }
        c(0, a) - mean(c(0, a))
      })
  }
  H <- matrix(init, nrow(x), P, byrow = TRUE) + O
  Hnew <- matrix(init, nrow(newx), P, byrow = TRUE) + Onew
  unpaid <- rep(TRUE, length(meas$mcost))                      # per measurement
  unused <- rep(TRUE, length(labels))                           # per group
  trees <- list()
  paid_by <- list()
  steps <- list(H)
  steps_new <- list(Hnew)
  losses <- loss(H)
  s0 <- NULL
  for (t in seq_len(n_trees)) {
    R <- switch(family, gaussian = Y - H, binomial = Y - plogis(H), multinomial = Y - softmax(H))
    if (is.null(s0)) {  # the impurity of the first gradient, in the units of the trees' gains
      s0 <- if (newton && family != "gaussian") {
        Pm <- Y - R
        0.5 * sum(w * R^2 / pmax(Pm * (1 - Pm) * (if (P > 1L) P / (P - 1) else 1), .Machine$double.xmin)) / P
      } else {
        0.5 * sum(w * R^2) / P
      }
    }
    for (c in seq_len(P)) {
      r <- R[, c]
      charge <- function(j, used) {                             # used: groups split on in this tree
        m <- m_of[[gi[j]]]
        used_m <- if (paid == "within_tree") unlist(m_of[used]) else integer(0)
        sum(meas$mcost[m[unpaid[m] & !(m %in% used_m)]])
      }
      zero <- 1e-14 * 0.5 * sum(w * r^2)
      tree <- if (newton && family != "gaussian") {
        # Newton trees as weighted least squares on the working response r / h with weights w h (the
        # IRLS view of LogitBoost, Friedman, Hastie and Tibshirani 2000): the same gains and leaves as
        # sums of w r over sums of w h; h = p (1 - p), times P / (P - 1) for P classes
        p_c <- Y[, c] - R[, c]  # the probabilities at the start of the iteration
        h <- pmax(p_c * (1 - p_c) * (if (P > 1L) P / (P - 1) else 1), .Machine$double.xmin)
        ref_tree(x, r / h, depth, min_node, lambda_scaled, charge, gi, zero, bins, w * h, min_weight = 1e-3)
      } else {
        ref_tree(x, r, depth, min_node, lambda_scaled, charge, gi, zero, bins, w)
      }
      H[, c] <- H[, c] + eta * ref_tree_predict(tree, x)
      Hnew[, c] <- Hnew[, c] + eta * ref_tree_predict(tree, newx)
      g_used <- unique(gi[tree$feature[tree$feature > 0L]])
      paid_by[[length(paid_by) + 1L]] <- labels[g_used[unused[g_used]]]
      unused[g_used] <- FALSE
      unpaid[unlist(m_of[g_used])] <- FALSE
      trees[[length(trees) + 1L]] <- tree
    }
    steps[[t + 1L]] <- H
    steps_new[[t + 1L]] <- Hnew
    losses <- c(losses, loss(H))
  }
  list(trees = trees, H = steps, Hnew = steps_new, loss = losses, paid_by = paid_by, init = init, s0 = s0)
}

# The trees of a package fit in the reference's layout (one data frame per tree).
fit_trees <- function(fit) {
  lapply(split(fit$trees, fit$trees$tree), function(tr) {
    data.frame(feature = ifelse(is.na(tr$column), 0L, tr$column), threshold = tr$threshold,
               left = ifelse(is.na(tr$left), 0L, tr$left), right = ifelse(is.na(tr$right), 0L, tr$right),
               value = tr$value)
  })
}

# A small regression problem with groups of columns and costs.
sim_miser <- function(n = 80, p = 6, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(n * p), n, p, dimnames = list(NULL, paste0("x", seq_len(p))))
  y <- x[, 1] + 0.8 * sin(2 * x[, 2]) + 0.6 * x[, 3] * x[, 4] + 0.3 * x[, 5] + rnorm(n, sd = 0.5)
  list(x = x, y = y, y01 = as.numeric(y > median(y)),
       yk = cut(y, quantile(y, c(0, 1 / 3, 2 / 3, 1)), include.lowest = TRUE, labels = c("lo", "mid", "hi")))
}
