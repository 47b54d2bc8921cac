## Experiment: the adaptive rule of fgseq_policy() with a Gaussian mixture working model fitted to the
## training rows, on the synthetic set, heart and Pima of bench/bench-adaptive.R: does a mixture that a
## fit could store reach what the true mixture gave on the synthetic set
## (bench/experiment-adaptive-mixture.R), and does it help where the data are not built for it?
##
## The working model: K Gaussian components of the model's columns (those of the groups the fit's
## sequence selects), fitted by EM to the training rows from a k-means start, each component's
## covariance the MAP estimate under an inverse-Wishart prior centred at the pooled covariance with
## p + 2 pseudo-rows ((scatter_k + (p + 2) Sigma) / (n_k + p + 2): full covariances on 120 rows need it).
## K = 1 is the single Gaussian of fgseq_policy() (its risk here by Monte Carlo, a check of the rule).
## Given the observed groups O of a row, component k has the posterior weight w_k (prior times the
## density of x_O under k) and eta = a0 + x'beta the conditional normal N(m_k, v_k); the decision is
## P(eta > 0 | x_O) = sum_k w_k pnorm(m_k / sqrt(v_k)) > 1/2 and the risk min(P, 1 - P). The expected
## risk after a group g: S = 64 draws of (k, x_g) from the conditional mixture, each updating the
## weights by the density of x_g given x_O under every component (the chain rule of the densities) and
## the components' conditional means. The rule buys the group of largest expected reduction of the
## risk per unit of marginal cost (`needs`: a measurement paid once), as fgseq_policy() does, and stops
## at the first point whose best reduction per cost is at most tau. No calibration: each rule at each
## of its thresholds, and printed is the least mean cost at which its disagreement with the full model
## on the test rows is at most eps, beside fgseq_policy() at fixed tau (the same grid) and the cascade on
## the static prefixes (margins 0, 0.01, ..., 0.5), the same fit and rows.
##
## Usage (from the package root, with fgseq installed; mlbench for Pima):
##   Rscript bench/experiment-adaptive-fitted-mixture.R                     # synthetic, heart, pima; K = 1, 2, 4, 8
##   Rscript bench/experiment-adaptive-fitted-mixture.R synthetic 1,8 300   # sets, K, test rows at most
##   Rscript bench/experiment-adaptive-fitted-mixture.R heart,pima 1,2,3 600 10  # and the mean over 10 splits
## fgseq_policy() runs on the mixtures' grid of tau (quarter decades from 1e-5 to 10^-0.5, and 0); a fifth
## argument "coarse" gives it the half decades of bench/experiment-adaptive-mixture.R.

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
args <- commandArgs(trailingOnly = TRUE)
sets <- strsplit(if (length(args) >= 1L) args[[1L]] else "synthetic,heart,pima", ",")[[1L]]
Ks <- as.integer(strsplit(if (length(args) >= 2L) args[[2L]] else "1,2,4,8", ",")[[1L]])
max_rows <- if (length(args) >= 3L) as.integer(args[[3L]]) else 600L
splits <- if (length(args) >= 4L) as.integer(args[[4L]]) else 1L  # heart and Pima: also the mean over random splits
coarse <- length(args) >= 5L && args[[5L]] == "coarse"  # fgseq_policy() on stop 68's tau grid (half decades)
S <- 64L

# ---- the mixture ---------------------------------------------------------------------------------

fit_mixture <- function(X, K, iterations = 200L, seed = 1L) {
  n <- nrow(X); p <- ncol(X)
  mu0 <- colMeans(X)
  # a column constant on the training rows (a rare level of a factor) gets a small variance: its
  # coefficient is 0, so it only must not make the covariances singular
  v <- apply(X, 2, stats::var)
  pooled <- stats::cov(X) + diag(1e-8 * v + 1e-6 * max(mean(v), 1e-12), p)
  n0 <- p + 2
  if (K == 1L) return(list(pi = 1, mu = matrix(mu0, 1), S = list(pooled), loglik = NA))
  set.seed(seed)
  z <- stats::kmeans(sweep(sweep(X, 2, mu0), 2, pmax(sqrt(v), 1e-12), "/"), K, nstart = 10L, iter.max = 50L)$cluster
  R <- outer(z, seq_len(K), "==") + 0
  old <- -Inf
  for (it in seq_len(iterations)) {
    nk <- colSums(R) + 1e-10
    pi <- nk / n
    mu <- t(R) %*% X / nk
    Sk <- lapply(seq_len(K), function(k) {
      D <- sweep(X, 2, mu[k, ])
      (crossprod(D * sqrt(R[, k])) + n0 * pooled) / (nk[k] + n0)
    })
    L <- sapply(seq_len(K), function(k) log(pi[k]) + dmvn_log(X, mu[k, ], Sk[[k]]))
    mx <- apply(L, 1, max)
    ll <- sum(mx + log(rowSums(exp(L - mx))))
    R <- exp(L - mx); R <- R / rowSums(R)
    if (ll - old < 1e-8 * abs(ll)) break
    old <- ll
  }
  list(pi = pi, mu = mu, S = Sk, loglik = ll)
}

# log N(x; mu, S) for the rows of X
dmvn_log <- function(X, mu, S) {
  U <- chol(S)
  Z <- backsolve(U, t(X) - mu, transpose = TRUE)
  -0.5 * colSums(Z^2) - sum(log(diag(U))) - 0.5 * ncol(X) * log(2 * pi)
}

# ---- the policy ----------------------------------------------------------------------------------

# The conditional model of a set O of columns (indices into the model's columns), per component: the
# regression of the others on x_O (B), their conditional covariance (C), eta's conditional variance.
make_node <- function(mix, beta, a0, O) {
  p <- length(beta); M <- setdiff(seq_len(p), O)
  lapply(seq_along(mix$pi), function(k) {
    Sk <- mix$S[[k]]; mu <- mix$mu[k, ]
    if (length(O)) {
      B <- Sk[M, O, drop = FALSE] %*% solve(Sk[O, O, drop = FALSE])
      C <- Sk[M, M, drop = FALSE] - B %*% Sk[O, M, drop = FALSE]
    } else {
      B <- matrix(0, length(M), 0); C <- Sk
    }
    list(O = O, M = M, mu = mu, B = B, C = C, v = max(drop(crossprod(beta[M], C %*% beta[M])), 1e-300))
  })
}

# for the rows of XO (values of the columns O, one row per draw): each component's conditional mean of eta
eta_means <- function(node, beta, a0, XO) {
  sapply(node, function(nd) {
    cm <- if (length(nd$O)) sweep(sweep(XO, 2, nd$mu[nd$O]) %*% t(nd$B), 2, nd$mu[nd$M], "+") else
      matrix(nd$mu[nd$M], nrow(XO), length(nd$M), byrow = TRUE)
    a0 + drop(XO %*% beta[nd$O]) + drop(cm %*% beta[nd$M])
  })
}

p_positive <- function(lw, m, node) {  # lw, m: draws x K
  lw <- matrix(lw, ncol = length(node)); m <- matrix(m, ncol = length(node))
  w <- exp(lw - apply(lw, 1, max)); w <- w / rowSums(w)
  s <- sqrt(vapply(node, function(nd) nd$v, 0))
  rowSums(w * stats::pnorm(sweep(m, 2, s, "/")))
}

mixture_trajectories <- function(fit, mix, cols, gcols, cost, needs, xt) {
  K <- ncol(fit$beta)
  beta <- fit$beta[cols, K]; a0 <- fit$a0[K]
  groups <- names(gcols)
  nodes <- new.env()
  node_of <- function(O) {
    key <- paste0("o", paste(sort(O), collapse = ","))
    if (is.null(nodes[[key]])) nodes[[key]] <- make_node(mix, beta, a0, sort(O))
    nodes[[key]]
  }
  marginal <- function(g, paid) sum(cost[setdiff(needs[[g]], paid)])
  lapply(seq_len(nrow(xt)), function(i) {
    xr <- xt[i, cols]
    Og <- character(0); paid <- character(0); spent <- 0
    lw <- log(mix$pi)
    out <- list()
    repeat {
      O <- sort(unlist(gcols[Og]))
      node <- node_of(O)
      m <- eta_means(node, beta, a0, matrix(xr[O], 1))
      p <- p_positive(lw, m, node); risk <- min(p, 1 - p)
      rest <- setdiff(groups, Og)
      if (!length(rest)) { out[[length(out) + 1L]] <- c(ratio = 0, cost = spent, d = p > 0.5); break }
      w <- exp(lw - max(lw)); w <- w / sum(w)
      ratio <- vapply(rest, function(g) {
        idx <- match(gcols[[g]], node[[1L]]$M)
        zs <- sample(length(w), S, replace = TRUE, prob = w)
        # x_g | x_O under each component: mean and the Cholesky factor of the covariance
        cond <- lapply(node, function(nd) {
          mean <- nd$mu[nd$M][idx] + if (length(O)) drop(nd$B[idx, , drop = FALSE] %*% (xr[O] - nd$mu[O])) else 0
          list(mean = mean, U = chol(nd$C[idx, idx, drop = FALSE] + diag(1e-12, length(idx))))
        })
        xg <- t(vapply(zs, function(k) cond[[k]]$mean + drop(crossprod(cond[[k]]$U, stats::rnorm(length(idx)))),
                       numeric(length(idx))))
        if (length(idx) == 1L) xg <- matrix(xg, ncol = 1L)
        ll <- sapply(cond, function(cd) {
          Z <- backsolve(cd$U, t(xg) - cd$mean, transpose = TRUE)
          -0.5 * colSums(matrix(Z, nrow = length(idx))^2) - sum(log(diag(cd$U)))
        })
        O2 <- sort(c(O, gcols[[g]]))
        node2 <- node_of(O2)
        X2 <- matrix(0, S, length(cols)); X2[, O] <- rep(xr[O], each = S); X2[, gcols[[g]]] <- xg
        m2 <- eta_means(node2, beta, a0, X2[, O2, drop = FALSE])
        p2 <- p_positive(sweep(matrix(ll, S), 2, lw, "+"), m2, node2)
        (risk - mean(pmin(p2, 1 - p2))) / max(marginal(g, paid), 1e-12)
      }, 0)
      out[[length(out) + 1L]] <- c(ratio = max(ratio), cost = spent, d = p > 0.5)
      g <- rest[which.max(ratio)]
      spent <- spent + marginal(g, paid)
      paid <- union(paid, needs[[g]])
      # the weights after observing x_g
      idx <- match(gcols[[g]], node[[1L]]$M)
      lw <- lw + vapply(node, function(nd) {
        mean <- nd$mu[nd$M][idx] + if (length(O)) drop(nd$B[idx, , drop = FALSE] %*% (xr[O] - nd$mu[O])) else 0
        dmvn_log(matrix(xr[gcols[[g]]], 1), mean, nd$C[idx, idx, drop = FALSE] + diag(1e-12, length(idx)))
      }, 0)
      Og <- c(Og, g)
    }
    do.call(rbind, out)
  })
}

curve_of <- function(tr, full, yt, taus) {
  t(sapply(taus, function(tau) {
    r <- t(sapply(tr, function(m) { k <- which(m[, "ratio"] <= tau)[1L]; if (is.na(k)) k <- nrow(m); m[k, c("cost", "d")] }))
    d <- r[, "d"] > 0.5
    c(cost = mean(r[, "cost"]), dis = mean(d != full), acc = mean(d == yt))
  }))
}
at <- function(tab, eps) { ok <- tab[, "dis"] <= eps; if (any(ok)) min(tab[ok, "cost"]) else NA }

run_experiment <- function(name, x, y, group, cost, needs, train, cal, test) {
  test <- utils::head(test, max_rows)
  fit <- fgseq(x[train, ], y[train], group, cost, needs = needs, family = "binomial", lambda = 1e-3)
  K <- ncol(fit$beta)
  xt <- x[test, , drop = FALSE]; yt <- y[test]
  full <- predict(fit, xt, type = "link")[, K] > 0
  groups <- fit$sequence
  cols <- which(group %in% groups)
  gcols <- lapply(groups, function(g) match(which(group == g), cols)); names(gcols) <- groups
  meas <- if (is.null(needs)) stats::setNames(as.list(groups), groups) else
    stats::setNames(lapply(groups, function(g) needs[[g]] %||% g), groups)
  cat(sprintf("==== %s: %d training, %d test rows; %d model columns in %d groups; full model test accuracy %.4f ====\n",
              name, length(train), length(test), length(cols), length(groups), mean(full == yt)))
  taus <- c(0, 10^seq(-5, -0.5, by = 0.25))
  curves <- list()
  for (k in Ks) {
    t0 <- proc.time()[[3]]
    mix <- fit_mixture(x[train, cols, drop = FALSE], k)
    set.seed(1)
    tr <- mixture_trajectories(fit, mix, cols, gcols, cost, meas, xt)
    curves[[sprintf("mixture K=%d", k)]] <- curve_of(tr, full, yt, taus)
    cat(sprintf("  K = %d: EM log-likelihood %s, trajectories %.1f s\n", k, format(mix$loglik, digits = 6),
                proc.time()[[3]] - t0))
  }
  # fgseq_policy() (single Gaussian, its own risk) at fixed tau, and the cascade on the static prefixes
  curves[["fgseq_policy"]] <- t(sapply(if (coarse) c(0, 10^seq(-5, -0.5, by = 0.5)) else taus, function(tau) {
    pol <- fgseq_policy(fit, x[cal, ], y[cal], rule = "adaptive", tau = tau)
    pr <- predict(pol, xt, type = "class")
    d <- as.character(pr) == "1"
    c(cost = mean(attr(pr, "cost")), dis = mean(d != full), acc = mean(d == yt))
  }))
  P <- stats::plogis(predict(fit, xt, type = "link"))
  seqc <- fit$path$cost
  curves[["cascade"]] <- t(sapply(seq(0, 0.5, by = 0.01), function(m) {
    k <- apply(abs(P - 0.5) >= m, 1, function(r) { i <- which(r); if (length(i)) i[1L] else K })
    d <- P[cbind(seq_along(k), k)] > 0.5
    c(cost = mean(seqc[k]), dis = mean(d != full), acc = mean(d == yt))
  }))
  tab <- t(sapply(c(0.01, 0.02, 0.05, 0.1, 0.2), function(eps) vapply(curves, at, 0, eps = eps)))
  rownames(tab) <- c(0.01, 0.02, 0.05, 0.1, 0.2)
  tab[is.na(tab)] <- max(seqc)  # not reached below the full cost
  print_table(tab, sprintf("mean cost at a disagreement with the full model of at most eps (full cost %.2f):", max(seqc)))
  invisible(tab)
}
print_table <- function(tab, title) {
  cat("  ", title, "\n", sep = "")
  cat(sprintf("  %-6s %s\n", "eps", paste(sprintf("%14s", colnames(tab)), collapse = "")))
  for (r in rownames(tab)) cat(sprintf("  %-6s %s\n", r, paste(sprintf("%14.2f", tab[r, ]), collapse = "")))
  cat("\n")
}
# the mean over `splits` random splits (seed 1, 2, ...) of each rule's least cost (a split that never
# reaches eps counts the full cost)
over_splits <- function(name, n, sizes, splits, run) {
  tabs <- lapply(seq_len(splits), function(s) {
    set.seed(s)
    perm <- sample(n)
    run(sort(perm[seq_len(sizes[1])]), sort(perm[sizes[1] + seq_len(sizes[2])]), sort(perm[-seq_len(sum(sizes))]))
  })
  mean_tab <- Reduce(`+`, tabs) / splits
  print_table(mean_tab, sprintf("%s, the mean over %d random splits of the least cost at a disagreement of at most eps:", name, splits))
}
`%||%` <- function(a, b) if (is.null(a)) b else a

if ("synthetic" %in% sets) {
  sc <- synthetic_cube(2000)
  run_experiment("synthetic", sc$x, sc$y, sc$group, sc$cost, NULL, sc$train, sc$cal, sc$test)
}
if ("heart" %in% sets) {
  hd <- heart
  set.seed(303)
  perm <- sample(nrow(hd))
  mm <- stats::model.matrix(diagnosis ~ ., data = hd)
  group <- attr(stats::terms(diagnosis ~ ., data = hd), "term.labels")[attr(mm, "assign")[-1L]]
  y <- as.numeric(hd$diagnosis)
  run_experiment("heart", mm[, -1L], y, group, heart_cost, NULL, sort(perm[1:120]), sort(perm[121:230]),
                 sort(perm[231:nrow(hd)]))
  if (splits > 1L) {
    over_splits("heart", nrow(hd), c(120, 110), splits, function(tr, ca, te)
      run_experiment("heart", mm[, -1L], y, group, heart_cost, NULL, tr, ca, te))
  }
}
if ("pima" %in% sets && requireNamespace("mlbench", quietly = TRUE)) {
  utils::data("PimaIndiansDiabetes2", package = "mlbench", envir = environment())
  pima <- stats::na.omit(PimaIndiansDiabetes2)
  set.seed(1995)
  perm <- sample(nrow(pima))
  cost <- c(pregnant = 1, glucose = 17.61 - 2.10, pressure = 1, triceps = 1, insulin = 22.78 - 2.10, mass = 1,
            pedigree = 1, age = 1, blood_draw = 2.10)
  run_experiment("Pima", as.matrix(pima[, 1:8]), as.numeric(pima$diabetes == "pos"), names(pima)[1:8], cost,
                 list(glucose = c("blood_draw", "glucose"), insulin = c("blood_draw", "insulin")),
                 sort(perm[1:160]), sort(perm[161:276]), sort(perm[277:392]))
  if (splits > 1L) {
    over_splits("Pima", nrow(pima), c(160, 116), splits, function(tr, ca, te)
      run_experiment("Pima", as.matrix(pima[, 1:8]), as.numeric(pima$diabetes == "pos"), names(pima)[1:8], cost,
                     list(glucose = c("blood_draw", "glucose"), insulin = c("blood_draw", "insulin")), tr, ca, te))
  }
}
