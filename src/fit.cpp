// The glue of the sequences fitted in memory (fgseq(), from data or from moments): .fit_path,
// .fit_moments, the checks' sweep over x (.scan_columns); the services of a fit (R's BLAS and LAPACK,
// its interrupt check and progress bar), its options and its result list, which the GLM fits from
// chunks (src/glm.cpp) share; and the names of the core's options.
#define USE_FC_LEN_T
#include "glue.h"

#include <R_ext/BLAS.h>
#include <R_ext/Lapack.h>
#ifndef FCONE
#define FCONE
#endif

#include <fgseq/greedy/fit.hpp>
#include <fgseq/miser/forest.hpp>

#include <algorithm>
#include <string>
#include <vector>

// [[Rcpp::depends(RcppEigen)]]

namespace glue {

// gram (lower triangle) += block' block through the BLAS R is linked to (dsyrk).
void blas_rank_update(Eigen::MatrixXd& gram, const Eigen::Ref<const Eigen::MatrixXd>& block) {
  const char uplo = 'L', trans = 'T';
  const int n = static_cast<int>(block.cols()), k = static_cast<int>(block.rows());
  const int lda = static_cast<int>(block.outerStride()), ldc = static_cast<int>(gram.outerStride());
  const double one = 1.0;
  if (n == 0 || k == 0) return;
  F77_CALL(dsyrk)(&uplo, &trans, &n, &k, &one, block.data(), &lda, &one, gram.data(), &ldc FCONE FCONE);
}

}  // namespace glue

namespace {

// a (lower triangle) = L L' in place through the LAPACK R is linked to (dpotrf); false when a pivot is
// not positive.
bool lapack_cholesky(Eigen::MatrixXd& a) {
  const char uplo = 'L';
  const int n = static_cast<int>(a.rows()), lda = static_cast<int>(a.outerStride());
  int info = 0;
  if (n == 0) return true;
  F77_CALL(dpotrf)(&uplo, &n, a.data(), &lda, &info FCONE);
  return info == 0;
}

// B = L^-1 B in place through the BLAS R is linked to (dtrsm), L lower triangular.
void blas_lower_solve(const Eigen::MatrixXd& L, Eigen::MatrixXd& B) {
  const char side = 'L', uplo = 'L', trans = 'N', diag = 'N';
  const int m = static_cast<int>(B.rows()), n = static_cast<int>(B.cols());
  const int lda = static_cast<int>(L.outerStride()), ldb = static_cast<int>(B.outerStride());
  const double one = 1.0;
  if (m == 0 || n == 0) return;
  F77_CALL(dtrsm)(&side, &uplo, &trans, &diag, &m, &n, &one, L.data(), &lda, B.data(), &ldb FCONE FCONE FCONE FCONE);
}

// C += X' Y through the BLAS R is linked to (dgemm).
void blas_cross_update(Eigen::MatrixXd& C, const Eigen::Ref<const Eigen::MatrixXd>& X,
                       const Eigen::Ref<const Eigen::MatrixXd>& Y) {
  const char ta = 'T', tb = 'N';
  const int m = static_cast<int>(X.cols()), n = static_cast<int>(Y.cols()), k = static_cast<int>(X.rows());
  const int ldx = static_cast<int>(X.outerStride()), ldy = static_cast<int>(Y.outerStride());
  const int ldc = static_cast<int>(C.outerStride());
  const double one = 1.0;
  if (m == 0 || n == 0 || k == 0) return;
  F77_CALL(dgemm)(&ta, &tb, &m, &n, &k, &one, X.data(), &ldx, Y.data(), &ldy, &one, C.data(), &ldc FCONE FCONE);
}

// A sparse coefficient matrix as the parts of a Matrix::dgCMatrix, 0-based (built in R by
// coefficient_matrix()): list(i = row of each stored value, p = column starts (K + 2), x = the values,
// dim = c(rows, columns)).
Rcpp::List sparse_parts(const fgseq::SparseMatrixXd& b) {
  const auto nnz = static_cast<size_t>(b.nonZeros());
  const auto cols = static_cast<size_t>(b.cols());
  return Rcpp::List::create(
      Rcpp::Named("i") = Rcpp::IntegerVector(b.innerIndexPtr(), b.innerIndexPtr() + nnz),
      Rcpp::Named("p") = Rcpp::IntegerVector(b.outerIndexPtr(), b.outerIndexPtr() + cols + 1),
      Rcpp::Named("x") = Rcpp::NumericVector(b.valuePtr(), b.valuePtr() + nnz),
      Rcpp::Named("dim") = Rcpp::IntegerVector::create(static_cast<int>(b.rows()), static_cast<int>(b.cols())));
}

}  // namespace

namespace glue {

fgseq::Services services(const std::string& gram, Rcpp::Nullable<Rcpp::Function> progress) {
  fgseq::Services svc;
  svc.check_interrupt = [] { Rcpp::checkUserInterrupt(); };
  if (gram == "blas") {
    svc.rank_update = blas_rank_update;
    svc.cholesky = lapack_cholesky;
    svc.lower_solve = blas_lower_solve;
    svc.cross_update = blas_cross_update;
  }
  if (progress.isNotNull()) {
    Rcpp::Function f(progress);
    svc.progress = [f](Eigen::Index done, Eigen::Index total) {
      f(static_cast<double>(done), static_cast<double>(total));
    };
  }
  return svc;
}

// The R list of a fitted path, with `max_abs` when the pass over x read it (control$check_values). A fit
// stopped by the values of x is list(stopped = TRUE, nonfinite = whether NA, NaN or Inf stopped it, max_abs).
Rcpp::List result_list(const fgseq::FitResult& fit) {
  if (fit.stopped) {
    return Rcpp::List::create(Rcpp::Named("stopped") = true, Rcpp::Named("nonfinite") = fit.scan.nonfinite >= 0,
                              Rcpp::Named("max_abs") = fit.scan.max_abs);
  }
  std::vector<int> sequence;
  for (auto g : fit.path.sequence) sequence.push_back(static_cast<int>(g) + 1);
  std::vector<int> rank;
  for (auto r : fit.rank) rank.push_back(static_cast<int>(r));
  Rcpp::LogicalVector constant(fit.constant.size());
  for (size_t j = 0; j < fit.constant.size(); ++j) constant[j] = fit.constant[j];
  Rcpp::List beta(fit.beta.size());
  for (size_t c = 0; c < fit.beta.size(); ++c) beta[c] = sparse_parts(fit.beta[c]);
  return Rcpp::List::create(
      Rcpp::Named("sequence") = sequence, Rcpp::Named("score") = fit.path.score,
      Rcpp::Named("group_cost") = fit.path.group_cost,
      Rcpp::Named("objective") = fit.path.objective, Rcpp::Named("r2") = fit.path.r2,
      Rcpp::Named("beta") = beta, Rcpp::Named("a0") = fit.a0, Rcpp::Named("constant") = constant,
      Rcpp::Named("rank") = rank, Rcpp::Named("null_risk") = fit.null_risk,
      Rcpp::Named("converged") = fit.converged, Rcpp::Named("partial") = fit.path.partial,
      Rcpp::Named("max_abs") = fit.scan.max_abs);
}

// The options of a fit, from the named list R builds once (fit_control() in R/fgseq.R).
fgseq::Control control_from(const Rcpp::List& opt) {
  fgseq::Control ctl;
  ctl.method = option<fgseq::Method>(opt, "method");
  ctl.criterion = option<fgseq::Criterion>(opt, "criterion");
  ctl.fr_gain = option<fgseq::FrGain>(opt, "fr_gain");
  ctl.cost_sensitive = Rcpp::as<bool>(opt["cost_sensitive"]);
  ctl.lambda = Rcpp::as<double>(opt["lambda"]);
  const double max_steps = Rcpp::as<double>(opt["max_steps"]);
  // cast only what an Index holds (2^62 steps are more than any fit has groups): larger is unbounded
  if (R_finite(max_steps) && max_steps >= 0 && max_steps < 4.6e18) ctl.max_steps = static_cast<Eigen::Index>(max_steps);
  ctl.max_cost = Rcpp::as<double>(opt["max_cost"]);
  ctl.c_min = Rcpp::as<double>(opt["c_min"]);  // NA_real_ is a NaN: the default rule
  for (int g : Rcpp::as<std::vector<int>>(opt["order"])) ctl.order.push_back(g);  // 0-based; empty: greedy
  ctl.max_time = Rcpp::as<double>(opt["max_time"]);
  if (opt.containsElementNamed("engine"))
    ctl.engine = option<fgseq::Engine>(opt, "engine");
  if (opt.containsElementNamed("threads")) ctl.threads = std::max(1, Rcpp::as<int>(opt["threads"]));
  if (opt.containsElementNamed("screen")) ctl.screen = Rcpp::as<bool>(opt["screen"]);
  if (opt.containsElementNamed("plain_scale")) {  // the pass over x checks the values (see fgseq::Control)
    const Rcpp::NumericVector plain = opt["plain_scale"];
    ctl.check_values = true;
    ctl.plain_min = plain[0];
    ctl.plain_max = plain[1];
  }
  return ctl;
}

}  // namespace glue

// The values of every option of the core, named as R gives them (the default first): the lists R
// checks its arguments against (core_choices() in R/checks.R).
// [[Rcpp::export(.option_names)]]
Rcpp::List option_names_cpp() {
  return Rcpp::List::create(
      Rcpp::Named("method") = glue::names_of<fgseq::Method>(), Rcpp::Named("criterion") = glue::names_of<fgseq::Criterion>(),
      Rcpp::Named("fr_gain") = glue::names_of<fgseq::FrGain>(), Rcpp::Named("engine") = glue::names_of<fgseq::Engine>(),
      Rcpp::Named("family") = glue::names_of<fgseq::Family>(), Rcpp::Named("paid") = glue::names_of<fgseq::PaidUpdate>(),
      Rcpp::Named("split") = glue::names_of<fgseq::SplitSearch>());
}

// Fit a sequence. x: a numeric matrix or a Matrix::dgCMatrix (read in place); y: n x P response matrix as the core expects it (see greedy/fit.hpp); weights: length n
// or 0; offset: n x P or 0 x 0; group_of: 0-based group index of each column; measurements: the list
// of measurement_index() (R/measurements.R), the measurements each group needs and their costs
// (glue::measurements_from() above); control: the named
// list of options (its `order`: 0-based groups of a given sequence, or empty to select greedily;
// `gram`: "blas" forms the cross-product with R's BLAS, "eigen" with Eigen; `max_time` in seconds);
// progress: NULL or an R function(done, total) called after each step. x = NULL: max_time was spent in
// the checks of x, and the fit is the null model of y, weights and offset, marked partial (null_fit()).
// [[Rcpp::export(.fit_path)]]
Rcpp::List fit_path_cpp(SEXP x, const Eigen::Map<Eigen::MatrixXd>& y,
                        const Eigen::Map<Eigen::VectorXd>& weights, const Eigen::Map<Eigen::MatrixXd>& offset,
                        const std::vector<int>& group_of, int n_groups, const Rcpp::List& measurements,
                        const std::string& family, const Rcpp::List& control,
                        Rcpp::Nullable<Rcpp::Function> progress) {
  const fgseq::Services svc = glue::services(Rcpp::as<std::string>(control["gram"]), progress);
  const fgseq::Control ctl = glue::control_from(control);
  const fgseq::Measurements cost = glue::measurements_from(measurements);
  if (Rf_isNull(x)) {
    return glue::result_list(fgseq::null_fit(static_cast<Eigen::Index>(group_of.size()), y, weights, offset, group_of,
                                       n_groups, cost, fgseq::from_name<fgseq::Family>(family), ctl, svc));
  }
  if (Rf_isS4(x)) {  // a dgCMatrix (checked in R)
    const Eigen::Map<Eigen::SparseMatrix<double>> m = Rcpp::as<Eigen::Map<Eigen::SparseMatrix<double>>>(x);
    const fgseq::SparseMap xs(m.rows(), m.cols(), m.nonZeros(), m.outerIndexPtr(), m.innerIndexPtr(), m.valuePtr());
    return glue::result_list(fgseq::fit_path(fgseq::SparseDesign(xs), y, weights, offset, group_of, n_groups, cost,
                                       fgseq::from_name<fgseq::Family>(family), ctl, svc));
  }
  const Eigen::Map<Eigen::MatrixXd> xd = Rcpp::as<Eigen::Map<Eigen::MatrixXd>>(x);
  return glue::result_list(fgseq::fit_path(fgseq::DenseDesign(xd), y, weights, offset, group_of, n_groups, cost,
                                     fgseq::from_name<fgseq::Family>(family), ctl, svc));
}

// The Gaussian fit from moments (see .fit_path for the other arguments). Moments of 0 columns (of y
// alone: max_time was spent in the pass over chunks of rows) give the null model, marked partial.
// [[Rcpp::export(.fit_moments)]]
Rcpp::List fit_moments_cpp(const Rcpp::List& moments, const std::vector<int>& group_of, int n_groups,
                           const Rcpp::List& measurements, const Rcpp::List& control,
                           Rcpp::Nullable<Rcpp::Function> progress) {
  const fgseq::Services svc = glue::services(Rcpp::as<std::string>(control["gram"]), progress);
  const fgseq::Moments m = glue::moments_from(moments);
  if (m.mean.size() == 0)
    return glue::result_list(fgseq::null_fit(m, group_of, n_groups, glue::measurements_from(measurements), glue::control_from(control), svc));
  return glue::result_list(fgseq::fit_moments(m, group_of, n_groups, glue::measurements_from(measurements), glue::control_from(control), svc));
}

// The checks' sweep over a dense x (scan_columns() in greedy/fit.hpp), polled between columns with max_time
// seconds left (Inf: no limit): nonfinite, the 1-based first column with NA, NaN or Inf (0: none);
// max_abs, the largest magnitude of each column; spent, TRUE when the time ran out (the rest unset).
// [[Rcpp::export(.scan_columns)]]
Rcpp::List scan_columns_cpp(const Eigen::Map<Eigen::MatrixXd>& x, double max_time) {
  fgseq::Services svc;
  svc.check_interrupt = [] { Rcpp::checkUserInterrupt(); };
  const fgseq::ColumnScan s = fgseq::scan_columns(x, max_time, svc);
  return Rcpp::List::create(Rcpp::Named("nonfinite") = static_cast<double>(s.nonfinite + 1),
                            Rcpp::Named("max_abs") = s.max_abs, Rcpp::Named("spent") = s.spent);
}
