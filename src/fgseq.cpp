// Thin glue between R and the fgseq core: maps R memory without copying, turns option strings into
// enums once, wires R's interrupt check into the core, and returns plain R lists.
#define USE_FC_LEN_T
#include <RcppEigen.h>
#include <R_ext/BLAS.h>
#include <R_ext/Lapack.h>
#ifndef FCONE
#define FCONE
#endif

#include <fgseq/fgseq.hpp>

#include <string>
#include <vector>

// [[Rcpp::depends(RcppEigen)]]

namespace {

// gram (lower triangle) += block' block through the BLAS R is linked to (dsyrk).
void blas_rank_update(Eigen::MatrixXd& gram, const Eigen::Ref<const Eigen::MatrixXd>& block) {
  const char uplo = 'L', trans = 'T';
  const int n = static_cast<int>(block.cols()), k = static_cast<int>(block.rows());
  const int lda = static_cast<int>(block.outerStride()), ldc = static_cast<int>(gram.outerStride());
  const double one = 1.0;
  if (n == 0 || k == 0) return;
  F77_CALL(dsyrk)(&uplo, &trans, &n, &k, &one, block.data(), &lda, &one, gram.data(), &ldc FCONE FCONE);
}

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

fgseq::Services services(const std::string& linear_algebra, Rcpp::Nullable<Rcpp::Function> progress) {
  fgseq::Services svc;
  svc.check_interrupt = [] { Rcpp::checkUserInterrupt(); };
  if (linear_algebra == "blas") {
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
      Rcpp::Named("converged") = fit.converged, Rcpp::Named("diverged") = fit.diverged, Rcpp::Named("partial") = fit.path.partial,
      Rcpp::Named("max_abs") = fit.scan.max_abs);
}

// The value of the option `name` of a list from R, by the names beside its enum in the core.
template <class E>
E option(const Rcpp::List& opt, const char* name) {
  return fgseq::from_name<E>(Rcpp::as<std::string>(opt[name]));
}

// The names of the values of an option, as the core's table beside its enum lists them.
template <class E>
std::vector<std::string> names_of() {
  std::vector<std::string> out;
  for (const auto& entry : fgseq::Names<E>::table) out.push_back(entry.second);
  return out;
}

}  // namespace

// The values of every option of the core, named as R gives them (the default first): the lists R
// checks its arguments against (core_choices() in R/checks.R).
// [[Rcpp::export(.option_names)]]
Rcpp::List option_names_cpp() {
  return Rcpp::List::create(
      Rcpp::Named("method") = names_of<fgseq::Method>(), Rcpp::Named("criterion") = names_of<fgseq::Criterion>(),
      Rcpp::Named("fr_gain") = names_of<fgseq::FrGain>(), Rcpp::Named("engine") = names_of<fgseq::Engine>(),
      Rcpp::Named("family") = names_of<fgseq::Family>(), Rcpp::Named("paid") = names_of<fgseq::PaidUpdate>(),
      Rcpp::Named("split") = names_of<fgseq::SplitSearch>());
}

// What the core's tables say of each method (method_traits(): what it scores, how it picks its
// candidates) and of each family (FamilyOps: least squares, the columns of y it takes), by name: what R
// asks of a method (method_scores() in R/fgseq.R) and what R's own tables are checked against
// (tests/testthat/test-tables.R).
// [[Rcpp::export(.core_traits)]]
Rcpp::List core_traits_cpp() {
  std::vector<std::string> method, scores, candidates;
  for (const auto& entry : fgseq::Names<fgseq::Method>::table) {
    const fgseq::MethodTraits t = fgseq::method_traits(entry.first);
    method.push_back(entry.second);
    scores.push_back(fgseq::name_of(t.scores));
    candidates.push_back(fgseq::name_of(t.candidates));
  }
  std::vector<std::string> family;
  std::vector<bool> least_squares, one_column, many_columns;
  for (const auto& entry : fgseq::Names<fgseq::Family>::table) {
    const fgseq::FamilyOps ops{entry.first};
    family.push_back(entry.second);
    least_squares.push_back(ops.least_squares());
    one_column.push_back(ops.columns_fit(1));
    many_columns.push_back(ops.columns_fit(2));
  }
  return Rcpp::List::create(
      Rcpp::Named("method") = Rcpp::List::create(Rcpp::Named("name") = method, Rcpp::Named("scores") = scores,
                                                 Rcpp::Named("candidates") = candidates),
      Rcpp::Named("family") = Rcpp::List::create(Rcpp::Named("name") = family,
                                                 Rcpp::Named("least_squares") = least_squares,
                                                 Rcpp::Named("one_column") = one_column,
                                                 Rcpp::Named("many_columns") = many_columns));
}

namespace {

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
  // the scale of the GLM's gradient for the chunked fits (the in-memory ones compute it from y)
  if (opt.containsElementNamed("grad_scale")) ctl.grad_scale = Rcpp::as<double>(opt["grad_scale"]);
  if (opt.containsElementNamed("plain_scale")) {  // the pass over x checks the values (see fgseq::Control)
    const Rcpp::NumericVector plain = opt["plain_scale"];
    ctl.check_values = true;
    ctl.plain_min = plain[0];
    ctl.plain_max = plain[1];
  }
  return ctl;
}

// The measurements of a fit, from the list R builds (measurement_index() in R/measurements.R):
// `needs`, one integer vector of 0-based measurement indices per group, and `measurement_cost`, one
// cost per measurement.
fgseq::Measurements measurements_from(const Rcpp::List& m) {
  const Rcpp::List needs = m["needs"];
  std::vector<std::vector<Eigen::Index>> idx(static_cast<size_t>(needs.size()));
  for (R_xlen_t g = 0; g < needs.size(); ++g) {
    const std::vector<int> v = Rcpp::as<std::vector<int>>(needs[g]);
    idx[static_cast<size_t>(g)].assign(v.begin(), v.end());
  }
  return fgseq::Measurements(std::move(idx), Rcpp::as<std::vector<double>>(m["measurement_cost"]));
}

fgseq::Moments moments_from(const Rcpp::List& m) {
  fgseq::Moments out;
  const double n = Rcpp::as<double>(m["n"]);  // checked in R; the core checks the sizes
  if (!(n >= 1 && n < 4.6e18)) Rcpp::stop("the statistics' row count `n` is out of range");
  out.n = static_cast<Eigen::Index>(n);
  out.weight_sum = Rcpp::as<double>(m["weight_sum"]);
  out.mean = Rcpp::as<Eigen::VectorXd>(m["mean"]);
  out.y_mean = Rcpp::as<Eigen::VectorXd>(m["y_mean"]);
  out.xx = Rcpp::as<Eigen::MatrixXd>(m["xx"]);
  out.xy = Rcpp::as<Eigen::MatrixXd>(m["xy"]);
  out.yy = Rcpp::as<Eigen::VectorXd>(m["yy"]);
  return out;
}

Rcpp::List moments_list(const fgseq::Moments& m) {
  return Rcpp::List::create(Rcpp::Named("n") = static_cast<double>(m.n), Rcpp::Named("weight_sum") = m.weight_sum,
                            Rcpp::Named("mean") = m.mean, Rcpp::Named("y_mean") = m.y_mean,
                            Rcpp::Named("xx") = m.xx, Rcpp::Named("xy") = m.xy, Rcpp::Named("yy") = m.yy);
}

// The column statistics and whitening maps of .moments_whitening and .group_moments_whitening: mean,
// scale, constant (one per column), T (one map per group) and rank.
Rcpp::List whitening_list(const fgseq::GramStats& st, const fgseq::Whitened& wh) {
  Rcpp::List T(wh.T.size());
  for (size_t g = 0; g < wh.T.size(); ++g) T[g] = Rcpp::wrap(wh.T[g]);
  Rcpp::LogicalVector constant(st.constant.size());
  for (size_t j = 0; j < st.constant.size(); ++j) constant[j] = st.constant[j];
  return Rcpp::List::create(Rcpp::Named("mean") = st.mean, Rcpp::Named("scale") = st.scale,
                            Rcpp::Named("constant") = constant, Rcpp::Named("T") = T,
                            Rcpp::Named("rank") = std::vector<int>(wh.rank.begin(), wh.rank.end()));
}

// The column statistics a GLM fit from chunks uses: mean, scale, constant (one per column of x).
fgseq::GramStats column_stats_from(const Rcpp::List& l) {
  fgseq::GramStats st;
  st.mean = Rcpp::as<Eigen::VectorXd>(l["mean"]);
  st.scale = Rcpp::as<Eigen::VectorXd>(l["scale"]);
  const Rcpp::LogicalVector constant = l["constant"];
  st.constant.assign(constant.begin(), constant.end());
  return st;
}

// The selected whitened columns and the column statistics they use, from the list R builds
// (in chunked_glm(), R/chunks.R): mean, scale, constant (one per column of x), cols (0-based columns
// of each selected group), T (their whitening maps).
void columns_from(const Rcpp::List& columns, fgseq::GramStats& st, fgseq::SelectedColumns& sel) {
  st = column_stats_from(columns);
  const Rcpp::List cols = columns["cols"], T = columns["T"];
  for (R_xlen_t k = 0; k < cols.size(); ++k) {
    const std::vector<int> c = Rcpp::as<std::vector<int>>(cols[k]);
    sel.cols.emplace_back(c.begin(), c.end());
    sel.T.push_back(Rcpp::as<Eigen::MatrixXd>(T[k]));
  }
}

}  // namespace

// Fit a sequence. x: a numeric matrix or a Matrix::dgCMatrix (read in place); y: n x P response matrix as the core expects it (see sequence/fit.hpp); weights: length n
// or 0; offset: n x P or 0 x 0; group_of: 0-based group index of each column; measurements: the list
// of measurement_index() (R/measurements.R), the measurements each group needs and their costs
// (measurements_from() above); control: the named
// list of options (its `order`: 0-based groups of a given sequence, or empty to select greedily;
// `linear_algebra`: "blas" forms the cross-products with R's BLAS, "eigen" with Eigen; `max_time` in seconds);
// progress: NULL or an R function(done, total) called after each step. x = NULL: max_time was spent in
// the checks of x, and the fit is the null model of y, weights and offset, marked partial (null_fit()).
// [[Rcpp::export(.fit_path)]]
Rcpp::List fit_path_cpp(SEXP x, const Eigen::Map<Eigen::MatrixXd>& y,
                        const Eigen::Map<Eigen::VectorXd>& weights, const Eigen::Map<Eigen::MatrixXd>& offset,
                        const std::vector<int>& group_of, int n_groups, const Rcpp::List& measurements,
                        const std::string& family, const Rcpp::List& control,
                        Rcpp::Nullable<Rcpp::Function> progress) {
  const fgseq::Services svc = services(Rcpp::as<std::string>(control["linear_algebra"]), progress);
  const fgseq::Control ctl = control_from(control);
  const fgseq::Measurements meas = measurements_from(measurements);
  if (Rf_isNull(x)) {
    return result_list(fgseq::null_fit(static_cast<Eigen::Index>(group_of.size()), y, weights, offset, group_of,
                                       n_groups, meas, fgseq::from_name<fgseq::Family>(family), ctl, svc));
  }
  if (Rf_isS4(x)) {  // a dgCMatrix (checked in R)
    const Eigen::Map<Eigen::SparseMatrix<double>> m = Rcpp::as<Eigen::Map<Eigen::SparseMatrix<double>>>(x);
    const fgseq::SparseMap xs(m.rows(), m.cols(), m.nonZeros(), m.outerIndexPtr(), m.innerIndexPtr(), m.valuePtr());
    return result_list(fgseq::fit_path(fgseq::SparseDesign(xs), y, weights, offset, group_of, n_groups, meas,
                                       fgseq::from_name<fgseq::Family>(family), ctl, svc));
  }
  const Eigen::Map<Eigen::MatrixXd> xd = Rcpp::as<Eigen::Map<Eigen::MatrixXd>>(x);
  return result_list(fgseq::fit_path(fgseq::DenseDesign(xd), y, weights, offset, group_of, n_groups, meas,
                                     fgseq::from_name<fgseq::Family>(family), ctl, svc));
}

// Centred moments of x (n x p) and y (n x P) with optional weights: the statistics of one chunk of rows.
// [[Rcpp::export(.moments)]]
Rcpp::List moments_cpp(const Eigen::Map<Eigen::MatrixXd>& x, const Eigen::Map<Eigen::MatrixXd>& y,
                       const Eigen::Map<Eigen::VectorXd>& weights, const std::string& linear_algebra) {
  const fgseq::Services svc = services(linear_algebra, R_NilValue);
  return moments_list(fgseq::centred_moments(x, y, weights, svc.check_interrupt, svc.rank_update));
}

// The moments of the union of two chunks of rows.
// [[Rcpp::export(.merge_moments)]]
Rcpp::List merge_moments_cpp(const Rcpp::List& a, const Rcpp::List& b) {
  return moments_list(fgseq::merge_moments(moments_from(a), moments_from(b)));
}

// The Gaussian fit from moments (see .fit_path for the other arguments). Moments of 0 columns (of y
// alone: max_time was spent in the pass over chunks of rows) give the null model, marked partial.
// [[Rcpp::export(.fit_moments)]]
Rcpp::List fit_moments_cpp(const Rcpp::List& moments, const std::vector<int>& group_of, int n_groups,
                           const Rcpp::List& measurements, const Rcpp::List& control,
                           Rcpp::Nullable<Rcpp::Function> progress) {
  const fgseq::Services svc = services(Rcpp::as<std::string>(control["linear_algebra"]), progress);
  const fgseq::Moments m = moments_from(moments);
  if (m.mean.size() == 0)
    return result_list(fgseq::null_fit(m, group_of, n_groups, measurements_from(measurements), control_from(control), svc));
  return result_list(fgseq::fit_moments(m, group_of, n_groups, measurements_from(measurements), control_from(control), svc));
}

// The centred moments of each group's columns by themselves (fgseq::group_moments): a list of one
// moments list (as .moments gives, of no response) per group. weights: n weights or numeric(0);
// group_of: 0-based group of each column.
// [[Rcpp::export(.group_moments)]]
Rcpp::List group_moments_cpp(const Eigen::Map<Eigen::MatrixXd>& x, const Eigen::Map<Eigen::VectorXd>& weights,
                             const std::vector<int>& group_of, int n_groups) {
  const std::vector<fgseq::Moments> m = fgseq::group_moments(x, weights, fgseq::make_layout(group_of, n_groups));
  Rcpp::List out(m.size());
  for (size_t g = 0; g < m.size(); ++g) out[g] = moments_list(m[g]);
  return out;
}

// The moments of each group over the union of two chunks of rows (lists of .group_moments).
// [[Rcpp::export(.merge_group_moments)]]
Rcpp::List merge_group_moments_cpp(const Rcpp::List& a, const Rcpp::List& b) {
  if (a.size() != b.size()) Rcpp::stop("the chunks' moments have different groups");
  Rcpp::List out(a.size());
  for (R_xlen_t g = 0; g < a.size(); ++g)
    out[g] = moments_list(fgseq::merge_moments(moments_from(a[g]), moments_from(b[g])));
  return out;
}

// Standardization and group whitening from the merged moments of each group (.group_moments), as
// .moments_whitening gives them from the moments of all columns: the same list.
// [[Rcpp::export(.group_moments_whitening)]]
Rcpp::List group_moments_whitening_cpp(const Rcpp::List& moments, const std::vector<int>& group_of, int n_groups,
                                       double rank_tol) {
  std::vector<fgseq::Moments> m;
  for (R_xlen_t g = 0; g < moments.size(); ++g) m.push_back(moments_from(moments[g]));
  fgseq::GramStats st;
  const fgseq::Whitened wh = fgseq::group_moments_whitening(std::move(m), fgseq::make_layout(group_of, n_groups), rank_tol, st);
  return whitening_list(st, wh);
}

// Standardization (the constant-column rule) and group whitening from merged moments, as the core
// does after its own pass: mean, scale, constant (one per column), T (one whitening map per group)
// and rank. group_of: 0-based group of each column.
// [[Rcpp::export(.moments_whitening)]]
Rcpp::List moments_whitening_cpp(const Rcpp::List& moments, const std::vector<int>& group_of, int n_groups,
                                 double rank_tol) {
  const fgseq::GramStats st = fgseq::standardize(moments_from(moments));
  const fgseq::Whitened wh = fgseq::whiten_groups(st, fgseq::make_layout(group_of, n_groups), rank_tol);
  return whitening_list(st, wh);
}

// The checks' sweep over a dense x (scan_columns() in sequence/fit.hpp), polled between columns with max_time
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

// The Greedy Miser (miser/). x: a numeric matrix or a Matrix::dgCMatrix (read in place, histogram
// search only); y: n x P targets (see miser_fit); weights: n positive weights or
// numeric(0); offset: n x P or a 0 x 0 matrix; group_of: 0-based group of each column; measurements:
// the list measurements_from() reads (the measurements each group needs and their costs); control: the
// named list miser() builds (family, paid, split, cost_penalty: the lambda of the paper's equation (5) per unit of the first
// gradient's impurity, max_steps, depth, eta, min_node_size, max_bin, threads, max_time in seconds);
// progress: NULL or an R function(done, total) called before each iteration.
// Returns the trees as flat arrays (0-based columns and local node numbers, -1 at leaves) and the
// scaled cost_penalty (the lambda' of equation (5)).
// [[Rcpp::export(.miser_fit)]]
Rcpp::List miser_fit_cpp(SEXP x, const Eigen::Map<Eigen::MatrixXd>& y,
                         const Eigen::Map<Eigen::VectorXd>& weights, const Eigen::Map<Eigen::MatrixXd>& offset,
                         const std::vector<int>& group_of, const Rcpp::List& measurements,
                         const Rcpp::List& control, Rcpp::Nullable<Rcpp::Function> progress) {
  fgseq::MiserControl ctl;
  ctl.family = option<fgseq::Family>(control, "family");
  ctl.paid = option<fgseq::PaidUpdate>(control, "paid");
  ctl.split = option<fgseq::SplitSearch>(control, "split");
  ctl.cost_penalty = Rcpp::as<double>(control["cost_penalty"]);
  ctl.cost_penalty_relative = true;
  ctl.max_steps = Rcpp::as<int>(control["max_steps"]);
  ctl.depth = Rcpp::as<int>(control["depth"]);
  ctl.eta = Rcpp::as<double>(control["eta"]);
  ctl.min_node_size = Rcpp::as<int>(control["min_node_size"]);
  ctl.max_bin = Rcpp::as<int>(control["max_bin"]);
  ctl.threads = std::max(1, Rcpp::as<int>(control["threads"]));
  ctl.max_time = Rcpp::as<double>(control["max_time"]);
  fgseq::ProgressCallback report;
  if (progress.isNotNull()) {
    Rcpp::Function f(progress);
    report = [f](Eigen::Index done, Eigen::Index total) { f(static_cast<double>(done), static_cast<double>(total)); };
  }
  const fgseq::Measurements meas = measurements_from(measurements);
  const auto interrupt = [] { Rcpp::checkUserInterrupt(); };
  fgseq::MiserFit fit;
  if (Rf_isS4(x)) {  // a dgCMatrix (checked in R), binned from its stored values
    const Eigen::Map<Eigen::SparseMatrix<double>> m = Rcpp::as<Eigen::Map<Eigen::SparseMatrix<double>>>(x);
    const fgseq::SparseMap xs(m.rows(), m.cols(), m.nonZeros(), m.outerIndexPtr(), m.innerIndexPtr(), m.valuePtr());
    fit = fgseq::miser_fit(xs, y, weights, offset, group_of, meas, ctl, interrupt, report);
  } else {
    fit = fgseq::miser_fit(Rcpp::as<Eigen::Map<Eigen::MatrixXd>>(x), y, weights, offset, group_of, meas, ctl, interrupt,
                           report);
  }
  const fgseq::Forest& f = fit.forest;
  std::vector<double> start(f.start.begin(), f.start.end());
  std::vector<double> paid_by(fit.paid_by.begin(), fit.paid_by.end());
  return Rcpp::List::create(
      Rcpp::Named("start") = start, Rcpp::Named("feature") = f.feature, Rcpp::Named("threshold") = f.threshold,
      Rcpp::Named("left") = f.left, Rcpp::Named("right") = f.right, Rcpp::Named("value") = f.value,
      Rcpp::Named("init") = fit.init, Rcpp::Named("loss") = fit.loss, Rcpp::Named("paid_by") = paid_by,
      Rcpp::Named("paid_cost") = fit.paid_cost, Rcpp::Named("partial") = fit.partial,
      Rcpp::Named("cost_penalty") = fit.cost_penalty);
}

// The additive predictor (link scale) of a miser fit after each of `steps` iterations: n x (P * m).
// [[Rcpp::export(.miser_predict)]]
Eigen::MatrixXd miser_predict_cpp(const Eigen::Map<Eigen::MatrixXd>& x, const std::vector<double>& start,
                                  const std::vector<int>& feature, const std::vector<double>& threshold,
                                  const std::vector<int>& left, const std::vector<int>& right,
                                  const std::vector<double>& value, const Eigen::Map<Eigen::VectorXd>& init,
                                  double eta, const std::vector<int>& steps) {
  fgseq::Forest f;
  f.start.assign(start.begin(), start.end());
  f.feature = feature;
  f.threshold = threshold;
  f.left = left;
  f.right = right;
  f.value = value;
  const std::vector<Eigen::Index> st(steps.begin(), steps.end());
  return fgseq::miser_predict(x, f, init, eta, st, [] { Rcpp::checkUserInterrupt(); });
}

// One chunk's additive parts of a GLM fit at theta ((m + 1) x P) over the selected whitened columns
// (see columns_from): loss, deviance, gradient, hessian, xr, rsum (fgseq::GlmSums).
// y and offset: n x P matrices.
// [[Rcpp::export(.glm_chunk_sums)]]
Rcpp::List glm_chunk_sums_cpp(const Eigen::Map<Eigen::MatrixXd>& x, const Eigen::Map<Eigen::MatrixXd>& y,
                              const Eigen::Map<Eigen::VectorXd>& weights, const Eigen::Map<Eigen::MatrixXd>& offset,
                              const std::string& family, const Rcpp::List& columns,
                              const Eigen::Map<Eigen::MatrixXd>& theta) {
  fgseq::GramStats st;
  fgseq::SelectedColumns sel;
  columns_from(columns, st, sel);
  const fgseq::GlmSums s = fgseq::glm_chunk_sums(fgseq::DenseDesign(x), y, weights, offset,
                                                 fgseq::from_name<fgseq::Family>(family), st, sel, theta);
  return Rcpp::List::create(Rcpp::Named("loss") = s.loss, Rcpp::Named("deviance") = s.deviance,
                            Rcpp::Named("gradient") = s.gradient, Rcpp::Named("hessian") = s.hessian,
                            Rcpp::Named("xr") = s.xr, Rcpp::Named("rsum") = s.rsum);
}

// One chunk's sums of the quadratic FR gains' pass (fgseq::glm_chunk_gains) at theta over the first
// n_selected groups of `columns` (see columns_from) for the candidate groups that follow them, in one
// vector (fgseq::pack_gain_sums). y and offset: n x P matrices.
// [[Rcpp::export(.glm_chunk_gains)]]
Eigen::VectorXd glm_chunk_gains_cpp(const Eigen::Map<Eigen::MatrixXd>& x, const Eigen::Map<Eigen::MatrixXd>& y,
                                    const Eigen::Map<Eigen::VectorXd>& weights, const Eigen::Map<Eigen::MatrixXd>& offset,
                                    const std::string& family, const Rcpp::List& columns,
                                    const Eigen::Map<Eigen::MatrixXd>& theta, int n_selected) {
  fgseq::GramStats st;
  fgseq::SelectedColumns sel;
  columns_from(columns, st, sel);
  return fgseq::pack_gain_sums(fgseq::glm_chunk_gains(fgseq::DenseDesign(x), y, weights, offset,
                                                      fgseq::from_name<fgseq::Family>(family), st, sel, n_selected, theta));
}

// The path of a binomial or Poisson fit from chunks of rows (chunked_glm() in R/chunks.R): the core's
// greedy engine and Newton solver, over sums from R. whitening: the list of .moments_whitening()
// (mean, scale, constant, T); group_of: 0-based group of each column; weight_sum: the total weight;
// theta0: the null model's intercepts (length P; its refit starts there); sums: an R
// function(theta, groups) (theta: vec of (m + 1) x P; groups: 1-based, in selection order) returning
// the list of .glm_chunk_sums() added over every chunk at theta; gains: NULL (CS-G-OMP) or, for FR and
// Doubling with the quadratic gain, an R function(theta, groups, candidates) (candidates: 1-based, in
// group order) returning the .glm_chunk_gains() of every chunk at theta, added; control, progress: as
// for .fit_path (max_time: the seconds left). Returns .fit_path's list.
// [[Rcpp::export(.glm_chunked_path)]]
Rcpp::List glm_chunked_path_cpp(const Rcpp::List& whitening, const std::vector<int>& group_of, int n_groups,
                                const Rcpp::List& measurements, double weight_sum,
                                const Eigen::Map<Eigen::VectorXd>& theta0, Rcpp::Function sums,
                                Rcpp::Nullable<Rcpp::Function> gains, const Rcpp::List& control,
                                Rcpp::Nullable<Rcpp::Function> progress) {
  const fgseq::Services svc = services(Rcpp::as<std::string>(control["linear_algebra"]), progress);
  const fgseq::Control ctl = control_from(control);
  const fgseq::GramStats st = column_stats_from(whitening);
  const Rcpp::List maps = whitening["T"];
  std::vector<Eigen::MatrixXd> T;
  for (R_xlen_t g = 0; g < maps.size(); ++g) T.push_back(Rcpp::as<Eigen::MatrixXd>(maps[g]));
  const fgseq::Whitened wh = fgseq::whitening_from_maps(std::move(T));
  const fgseq::GroupLayout lay = fgseq::make_layout(group_of, n_groups);
  const auto one_based = [](const std::vector<Eigen::Index>& groups) {
    Rcpp::IntegerVector set(groups.size());
    for (size_t k = 0; k < groups.size(); ++k) set[k] = static_cast<int>(groups[k]) + 1;
    return set;
  };
  const fgseq::GlmSumsSource source = [&sums, &one_based](const std::vector<Eigen::Index>& groups, const Eigen::MatrixXd& theta) {
    const Rcpp::List s = sums(Rcpp::NumericVector(theta.data(), theta.data() + theta.size()), one_based(groups));
    fgseq::GlmSums out;
    out.loss = Rcpp::as<double>(s["loss"]);
    out.deviance = Rcpp::as<double>(s["deviance"]);
    out.gradient = Rcpp::as<Eigen::MatrixXd>(s["gradient"]);
    out.hessian = Rcpp::as<Eigen::MatrixXd>(s["hessian"]);
    out.xr = Rcpp::as<Eigen::MatrixXd>(s["xr"]);
    out.rsum = Rcpp::as<Eigen::VectorXd>(s["rsum"]);
    return out;
  };
  fgseq::GlmGainSource gain_source;
  if (gains.isNotNull()) {
    gain_source = [f = Rcpp::Function(gains), &one_based](const std::vector<Eigen::Index>& groups,
                                                           const std::vector<Eigen::Index>& candidates,
                                                           const Eigen::MatrixXd& theta, const fgseq::GainLayout& gl) {
      const Eigen::VectorXd v = Rcpp::as<Eigen::VectorXd>(
          f(Rcpp::NumericVector(theta.data(), theta.data() + theta.size()), one_based(groups), one_based(candidates)));
      return fgseq::unpack_gain_sums(v, gl, theta.cols());
    };
  }
  return result_list(fgseq::fit_glm_refit(wh, st, lay, weight_sum, theta0.transpose(),
                                          fgseq::sums_refitter(source, weight_sum, ctl),
                                          measurements_from(measurements), ctl, svc, gain_source));
}

// Calls f with x read in place: a SparseMap of a Matrix::dgCMatrix (checked in R) or a map of a numeric
// matrix.
template <typename F>
auto with_matrix(SEXP x, F f) {
  if (Rf_isS4(x)) {
    const Eigen::Map<Eigen::SparseMatrix<double>> m = Rcpp::as<Eigen::Map<Eigen::SparseMatrix<double>>>(x);
    return f(fgseq::SparseMap(m.rows(), m.cols(), m.nonZeros(), m.outerIndexPtr(), m.innerIndexPtr(), m.valuePtr()));
  }
  return f(Rcpp::as<Eigen::Map<Eigen::MatrixXd>>(x));
}

// Anytime prediction of rows that may lack values (greedy/predict.hpp). x: a numeric matrix or a
// Matrix::dgCMatrix, NaN where a value was not computed; column_step: the step from which the model
// reads each column (> K: never); requested: 1 x m or n x m requested steps; a0: P x (K + 1)
// intercepts; coef: p x ((K + 1) P) coefficients (response c's steps in columns c (K + 1) ..).
// Returns link (n x (m P)), step (n x m) and n_infinite.
// [[Rcpp::export(.prefix_predict)]]
Rcpp::List prefix_predict_cpp(SEXP x, const std::vector<int>& column_step, const Eigen::Map<Eigen::MatrixXi>& requested,
                              const Eigen::Map<Eigen::MatrixXd>& a0, const Eigen::Map<Eigen::MatrixXd>& coef) {
  const fgseq::StepCoefficients cf(a0, coef);
  const auto interrupt = [] { Rcpp::checkUserInterrupt(); };
  const fgseq::PrefixPrediction out =
      with_matrix(x, [&](const auto& xm) { return fgseq::prefix_predict(xm, column_step, requested, cf, interrupt); });
  return Rcpp::List::create(Rcpp::Named("link") = out.link, Rcpp::Named("step") = out.step,
                            Rcpp::Named("n_infinite") = static_cast<double>(out.n_infinite));
}

// The number of values that are not finite in the given columns (1-based) of x, a numeric matrix or a
// Matrix::dgCMatrix (greedy/predict.hpp).
// [[Rcpp::export(.count_nonfinite)]]
double count_nonfinite_cpp(SEXP x, const std::vector<int>& columns) {
  std::vector<Eigen::Index> zero_based;
  for (int j : columns) zero_based.push_back(j - 1);
  return static_cast<double>(with_matrix(x, [&](const auto& xm) { return fgseq::count_nonfinite(xm, zero_based); }));
}

// For each row of x, the first step whose columns it lacks, or max_step + 1 (greedy/predict.hpp).
// [[Rcpp::export(.first_missing_step)]]
std::vector<int> first_missing_step_cpp(const Eigen::Map<Eigen::MatrixXd>& x, const std::vector<int>& column_step,
                                        int max_step) {
  return fgseq::first_missing_step(x, column_step, max_step);
}

// The cost-weighted group lasso path (sparse/grouplasso.hpp) on whitened groups z (n x r, group g's `sizes[g]`
// columns after group g - 1's), with weights w and offset (numeric(0): none), multipliers m, family
// "gaussian", "binomial" or "poisson". Returns penalty (the grid), beta (r x n_penalty), a0, entry (the
// penalty at which each group enters; NA: not entered) and kkt.
// [[Rcpp::export(.group_lasso_path)]]
Rcpp::List group_lasso_path_cpp(const Eigen::Map<Eigen::MatrixXd>& z, const std::vector<int>& sizes,
                                const Eigen::Map<Eigen::VectorXd>& y, const Eigen::Map<Eigen::VectorXd>& w,
                                const Eigen::Map<Eigen::VectorXd>& offset, const Eigen::Map<Eigen::VectorXd>& m,
                                const std::string& family, int n_penalty, double penalty_min_ratio) {
  fgseq::GroupLasso gl(z, std::vector<Eigen::Index>(sizes.begin(), sizes.end()), y, w, offset, m,
                       fgseq::from_name<fgseq::Family>(family));
  fgseq::GroupLassoPath p = gl.path(n_penalty, penalty_min_ratio, [] { Rcpp::checkUserInterrupt(); });
  Rcpp::NumericVector entry(p.entry.data(), p.entry.data() + p.entry.size());
  for (R_xlen_t g = 0; g < entry.size(); ++g) if (std::isnan(entry[g])) entry[g] = NA_REAL;
  return Rcpp::List::create(Rcpp::Named("penalty") = p.penalty, Rcpp::Named("beta") = p.beta, Rcpp::Named("a0") = p.a0,
                            Rcpp::Named("entry") = entry, Rcpp::Named("kkt") = p.kkt);
}

// The expected decision risk of each row after observing one group more (adaptive/risk.hpp): contrast
// means m, variances v before and v_new after; the gaussian family's with tolerance tol.
// [[Rcpp::export(.expected_decision_risks)]]
Eigen::VectorXd expected_decision_risks_cpp(const Eigen::Map<Eigen::VectorXd>& m, const Eigen::Map<Eigen::VectorXd>& v,
                                            const Eigen::Map<Eigen::VectorXd>& v_new, bool gaussian, double tol) {
  if (v.size() != m.size() || v_new.size() != m.size()) Rcpp::stop("m, v and v_new must have the same length");
  return fgseq::expected_decision_risks(m, v, v_new, gaussian, tol);
}

// P(Z1 > h, Z2 > k) for standard normals of correlation r (adaptive/risk.hpp), elementwise.
// [[Rcpp::export(.bvn_upper)]]
Eigen::VectorXd bvn_upper_cpp(const Eigen::Map<Eigen::VectorXd>& h, const Eigen::Map<Eigen::VectorXd>& k,
                              const Eigen::Map<Eigen::VectorXd>& r) {
  if (k.size() != h.size() || r.size() != h.size()) Rcpp::stop("h, k and r must have the same length");
  Eigen::VectorXd out(h.size());
  for (Eigen::Index i = 0; i < h.size(); ++i) out[i] = fgseq::bvn_upper(h[i], k[i], r[i]);
  return out;
}

// The Gauss-Legendre rules of bvn_upper() (adaptive/risk.hpp): a list of three list(x, w), the 6-, 12-
// and 20-point rules (half of each symmetric rule), which the JSON predictor of a policy carries.
// [[Rcpp::export(.bvn_rules)]]
Rcpp::List bvn_rules_cpp() {
  Rcpp::List out(3);
  for (int g = 0; g < 3; ++g) {
    const fgseq::BvnRule rule = fgseq::bvn_rule(g);
    out[g] = Rcpp::List::create(Rcpp::Named("x") = std::vector<double>(rule.x, rule.x + rule.size),
                                Rcpp::Named("w") = std::vector<double>(rule.w, rule.w + rule.size));
  }
  return out;
}

namespace {

// 1-based R indices as 0-based core indices.
std::vector<Eigen::Index> zero_based(const Rcpp::IntegerVector& k) {
  std::vector<Eigen::Index> out(k.size());
  for (R_xlen_t i = 0; i < k.size(); ++i) out[i] = k[i] - 1;
  return out;
}

// The rows `rows` (0-based) and columns `cols` (0-based) of x, less `center` (one per column).
Eigen::MatrixXd gather(const Eigen::Map<Eigen::MatrixXd>& x, const std::vector<Eigen::Index>& rows,
                       const std::vector<Eigen::Index>& cols, const Eigen::VectorXd* center) {
  Eigen::MatrixXd out(rows.size(), cols.size());
  for (std::size_t c = 0; c < cols.size(); ++c) {
    const double* col = x.data() + cols[c] * x.rows();
    const double m = center ? (*center)[c] : 0.0;
    for (std::size_t i = 0; i < rows.size(); ++i) out(i, c) = col[rows[i]] - m;
  }
  return out;
}

}  // namespace

// Sweeps the pivots k (1-based) of the symmetric matrix A at once (adaptive/node.hpp), leaving out
// those the sweep in turn would skip (diag0: their original variances), the rank update through R's
// BLAS when `linear_algebra` is "blas" (linear_algebra() in R). list(A, swept: 1-based).
// [[Rcpp::export(.sweep_block)]]
Rcpp::List sweep_block_cpp(Eigen::MatrixXd A, const Rcpp::IntegerVector& k, const Eigen::Map<Eigen::VectorXd>& diag0,
                           const std::string& linear_algebra) {
  const std::vector<Eigen::Index> swept =
      fgseq::sweep_block(A, zero_based(k), diag0, linear_algebra == "blas" ? fgseq::RankUpdate(blas_rank_update) : fgseq::RankUpdate());
  Rcpp::IntegerVector out(swept.size());
  for (std::size_t i = 0; i < swept.size(); ++i) out[i] = static_cast<int>(swept[i] + 1);
  return Rcpp::List::create(Rcpp::Named("A") = A, Rcpp::Named("swept") = out);
}

// One node of a policy for the rows `rows` (1-based) of x (adaptive/node.hpp, evaluate_node()): `node`
// holds the swept pivots (`swept`, 1-based into A) with their x columns (`swept_cols`) and means
// (`swept_mu`), the prefix model (`prefix`, `prefix_cols`, `prefix_beta`, `prefix_a0`), the candidates'
// pivots (`candidates`, a list) with their original variances (`candidate_diag0`) and marginal costs
// (`marginal_cost`), what the rows have spent (`spent`) and their budgets (`budget`); `settings` the
// policy's family, rule, stopping, tol, threshold (NA: none), eta0 (1-based), P and base.
// [[Rcpp::export(.policy_node)]]
Rcpp::List policy_node_cpp(const Eigen::Map<Eigen::MatrixXd>& A, const Eigen::Map<Eigen::MatrixXd>& x,
                           const Rcpp::IntegerVector& rows, const Rcpp::List& node, const Rcpp::List& settings,
                           bool table) {
  fgseq::NodeSpec s;
  s.family = fgseq::from_name<fgseq::Family>(Rcpp::as<std::string>(settings["family"]));
  s.rule = fgseq::from_name<fgseq::PolicyRule>(Rcpp::as<std::string>(settings["rule"]));
  s.stop = fgseq::from_name<fgseq::PolicyStop>(Rcpp::as<std::string>(settings["stopping"]));
  s.tol = Rcpp::as<double>(settings["tol"]);
  s.threshold = Rcpp::as<double>(settings["threshold"]);  // NA_real_ is a NaN: none
  s.eta0 = Rcpp::as<int>(settings["eta0"]) - 1;
  s.P = Rcpp::as<int>(settings["P"]);
  s.base = Rcpp::as<Eigen::VectorXd>(settings["base"]);
  const std::vector<Eigen::Index> r = zero_based(rows);
  s.swept = zero_based(Rcpp::IntegerVector(node["swept"]));
  const Eigen::VectorXd mu = Rcpp::as<Eigen::VectorXd>(node["swept_mu"]);
  s.xo = gather(x, r, zero_based(Rcpp::IntegerVector(node["swept_cols"])), &mu);
  s.prefix = Rcpp::as<bool>(node["prefix"]);
  if (s.prefix) {
    s.xp = gather(x, r, zero_based(Rcpp::IntegerVector(node["prefix_cols"])), nullptr);
    s.prefix_beta = Rcpp::as<Eigen::MatrixXd>(node["prefix_beta"]);
    s.prefix_a0 = Rcpp::as<Eigen::VectorXd>(node["prefix_a0"]);
  }
  const Rcpp::List cand = node["candidates"], cand_d0 = node["candidate_diag0"];
  for (R_xlen_t k = 0; k < cand.size(); ++k) {
    s.candidates.push_back(zero_based(Rcpp::IntegerVector(cand[k])));
    s.candidate_diag0.push_back(Rcpp::as<Eigen::VectorXd>(cand_d0[k]));
  }
  s.marginal_cost = Rcpp::as<Eigen::VectorXd>(node["marginal_cost"]);
  s.spent = Rcpp::as<double>(node["spent"]);
  s.budget = Rcpp::as<Eigen::VectorXd>(node["budget"]);
  s.table = table;
  const fgseq::NodeResult res = fgseq::evaluate_node(A, s);
  Rcpp::IntegerVector best(res.best.size());
  for (std::size_t i = 0; i < res.best.size(); ++i) best[i] = res.best[i] < 0 ? NA_INTEGER : res.best[i] + 1;
  auto na = [](Eigen::VectorXd v) {
    for (Eigen::Index i = 0; i < v.size(); ++i) if (std::isnan(v[i])) v[i] = NA_REAL;
    return v;
  };
  Rcpp::List out = Rcpp::List::create(
      Rcpp::Named("link") = res.link, Rcpp::Named("rlink") = res.rlink, Rcpp::Named("decision") = res.decision,
      Rcpp::Named("best") = best, Rcpp::Named("score") = res.score, Rcpp::Named("margin") = na(res.margin),
      Rcpp::Named("risk") = na(res.risk), Rcpp::Named("sd") = res.sd, Rcpp::Named("var") = res.var);
  if (table) {
    Eigen::MatrixXd red = res.reduction, sc = res.table_score;
    for (Eigen::Index i = 0; i < red.size(); ++i) if (std::isnan(red.data()[i])) red.data()[i] = NA_REAL;
    for (Eigen::Index i = 0; i < sc.size(); ++i) if (std::isnan(sc.data()[i])) sc.data()[i] = NA_REAL;
    out["reduction"] = red;
    out["table_score"] = sc;
  }
  return out;
}
