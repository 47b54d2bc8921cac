# An independent scorer of the JSON that write_predictor() writes, in plain R from the schema in
# ?write_predictor: it reads the file with jsonlite and uses no code of the package.

# The input columns from raw data: a numeric matrix with named columns (matrix fits) or, for formula
# fits, a data frame of the model variables, from which each column is the product of its numeric
# variables and of its factors' codings at the row's level.
scorer_columns <- function(pred, data) {
  names_in <- vapply(pred$columns, identity, character(1))
  if (is.null(pred$formula)) return(as.matrix(data)[, names_in, drop = FALSE])
  out <- vapply(pred$formula$columns, function(cl) {
    val <- rep(1, nrow(data))
    for (v in unlist(cl$numeric)) val <- val * eval(str2lang(v), data)
    for (f in cl$factors) {
      code <- unlist(f$coding)
      val <- val * unname(code[as.character(data[[f$variable]])])
    }
    val
  }, numeric(nrow(data)))
  out <- matrix(out, nrow(data))
  colnames(out) <- names_in
  out
}

# Output of one tree for every row of x.
scorer_tree <- function(tree, x) {
  vapply(seq_len(nrow(x)), function(i) {
    node <- 0L
    while (!is.null(tree$feature[[node + 1L]])) {
      go_left <- x[i, tree$feature[[node + 1L]]] <= tree$threshold[[node + 1L]]
      node <- if (go_left) tree$left[[node + 1L]] else tree$right[[node + 1L]]
    }
    tree$value[[node + 1L]]
  }, numeric(1))
}

# The linear predictors (n x P) of every step: a list, element k + 1 the model after step k.
score_predictor <- function(path, data) {
  pred <- jsonlite::fromJSON(path, simplifyVector = FALSE)
  x <- scorer_columns(pred, data)
  n <- nrow(x)
  P <- length(pred$responses)
  if (pred$model == "linear") {
    return(lapply(pred$steps, function(s) {
      eta <- matrix(unlist(s$intercept), n, P, byrow = TRUE)
      for (col in names(s$coefficients)) {
        eta <- eta + outer(x[, col], unlist(s$coefficients[[col]]))
      }
      eta
    }))
  }
  H <- matrix(unlist(pred$init), n, P, byrow = TRUE)
  lapply(pred$steps, function(s) {
    for (t in unlist(s$trees)) {
      tree <- pred$trees[[t + 1L]]
      c <- tree$response + 1L
      H[, c] <<- H[, c] + pred$shrinkage * scorer_tree(tree, x)
    }
    H
  })
}

# The inverse link named in the file.
scorer_response <- function(link, eta) {
  switch(link, identity = eta, logit = 1 / (1 + exp(-eta)), log = exp(eta),
         softmax = {
           e <- exp(eta - apply(eta, 1, max))
           e / rowSums(e)
         })
}
