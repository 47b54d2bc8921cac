// What the units of the glue that fit a sequence share (src/fgseq.cpp, src/glm.cpp): R's BLAS and
// LAPACK and the other services a fit is given, the options of a fit and its moments from R's lists,
// and the R list of a fitted path (sequence/path.hpp: no model of the core). Declarations only: the
// definitions are in src/glue-impl.h, compiled once (in src/fgseq.cpp).
#ifndef FGSEQ_GLUE_FIT_H
#define FGSEQ_GLUE_FIT_H

#include "glue.h"

#include <R_ext/BLAS.h>
#include <R_ext/Lapack.h>
#ifndef FCONE
#define FCONE
#endif

#include <fgseq/sequence/path.hpp>

namespace glue {

// gram (lower triangle) += block' block through the BLAS R is linked to (dsyrk).
void blas_rank_update(Eigen::MatrixXd& gram, const Eigen::Ref<const Eigen::MatrixXd>& block);

// a (lower triangle) = L L' in place through the LAPACK R is linked to (dpotrf); false when a pivot is
// not positive.
bool lapack_cholesky(Eigen::MatrixXd& a);

// B = L^-1 B in place through the BLAS R is linked to (dtrsm), L lower triangular.
void blas_lower_solve(const Eigen::MatrixXd& L, Eigen::MatrixXd& B);

// C += X' Y through the BLAS R is linked to (dgemm).
void blas_cross_update(Eigen::MatrixXd& C, const Eigen::Ref<const Eigen::MatrixXd>& X,
                       const Eigen::Ref<const Eigen::MatrixXd>& Y);

fgseq::Services services(const std::string& linear_algebra, Rcpp::Nullable<Rcpp::Function> progress);

// A sparse coefficient matrix as the parts of a Matrix::dgCMatrix, 0-based (built in R by
// coefficient_matrix()): list(i = row of each stored value, p = column starts (K + 2), x = the values,
// dim = c(rows, columns)).
Rcpp::List sparse_parts(const fgseq::SparseMatrixXd& b);

// The R list of a fitted path, with `max_abs` when the pass over x read it (control$check_values). A fit
// stopped by the values of x is list(stopped = TRUE, nonfinite = whether NA, NaN or Inf stopped it, max_abs).
Rcpp::List result_list(const fgseq::FitResult& fit);

// The options of a fit, from the named list R builds once (fit_control() in R/fgseq.R).
fgseq::Control control_from(const Rcpp::List& opt);

fgseq::Moments moments_from(const Rcpp::List& m);

Rcpp::List moments_list(const fgseq::Moments& m);

// The column statistics and whitening maps of .moments_whitening and .group_moments_whitening: mean,
// scale, constant (one per column), T (one map per group) and rank.
Rcpp::List whitening_list(const fgseq::GramStats& st, const fgseq::Whitened& wh);

// The column statistics a GLM fit from chunks uses: mean, scale, constant (one per column of x).
fgseq::GramStats column_stats_from(const Rcpp::List& l);

}  // namespace glue

#endif
