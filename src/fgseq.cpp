// Thin glue between R and the fgseq core: maps R memory without copying, turns option strings into
// enums once, wires R's interrupt check into the core, and returns plain R lists. The glue is in three
// units that compile side by side, each including only the rooms of the core it calls: this one (the
// option tables, the linear fits and the statistics passes, anytime prediction, the group lasso, the
// policy nodes), glm.cpp (the GLM fits: in memory, through fit_path(), and from chunks) and miser.cpp
// (the Greedy Miser); glue.h and glue-fit.h hold what they share.
#include "glue-fit.h"

#include <fgseq/adaptive/mixture.hpp>
#include <fgseq/adaptive/node.hpp>
#include <fgseq/adaptive/risk.hpp>
#include <fgseq/greedy/predict.hpp>
#include <fgseq/sequence/fit.hpp>
#include <fgseq/miser/forest.hpp>  // the Miser's option tables (.option_names)
#include <fgseq/sparse/grouplasso.hpp>

#include <string>
#include <vector>

// [[Rcpp::depends(RcppEigen)]]

using namespace glue;

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
// (`marginal_cost`), what the rows have spent (`spent`), the marginal cost of every group left (`rest_cost`)
// and their budgets (`budget`); under a mixture working model (adaptive/mixture.hpp) `mixture`, a list
// of the components (`A`, `swept`, `mu`, `base`, `lw0`, `diag0`; A is then not read), `model_cols` (the
// x columns of A's first rows) and `draws`; `settings` the
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
  s.rest_cost = Rcpp::as<double>(node["rest_cost"]);
  s.budget = Rcpp::as<Eigen::VectorXd>(node["budget"]);
  s.table = table;
  fgseq::NodeResult res;
  if (node.containsElementNamed("mixture")) {  // a mixture working model: the components' own matrices
    fgseq::MixtureSpec mx;
    const Rcpp::List comps = node["mixture"];
    for (R_xlen_t k = 0; k < comps.size(); ++k) {
      const Rcpp::List c = comps[k];
      fgseq::MixtureComponent mc;
      mc.A = Rcpp::as<Eigen::MatrixXd>(c["A"]);
      mc.swept = zero_based(Rcpp::IntegerVector(c["swept"]));
      mc.mu = Rcpp::as<Eigen::VectorXd>(c["mu"]);
      mc.base = Rcpp::as<double>(c["base"]);
      mc.lw0 = Rcpp::as<double>(c["lw0"]);
      mc.diag0 = Rcpp::as<Eigen::VectorXd>(c["diag0"]);
      mx.components.push_back(std::move(mc));
    }
    mx.x = gather(x, r, zero_based(Rcpp::IntegerVector(node["model_cols"])), nullptr);
    mx.z = Rcpp::as<Eigen::MatrixXd>(node["draws"]);
    res = fgseq::evaluate_mixture_node(mx, s);
  } else {
    res = fgseq::evaluate_node(A, s);
  }
  Rcpp::IntegerVector best(res.best.size());
  for (std::size_t i = 0; i < res.best.size(); ++i) best[i] = res.best[i] < 0 ? NA_INTEGER : res.best[i] + 1;
  auto na = [](Eigen::VectorXd v) {
    for (Eigen::Index i = 0; i < v.size(); ++i) if (std::isnan(v[i])) v[i] = NA_REAL;
    return v;
  };
  Rcpp::List out = Rcpp::List::create(
      Rcpp::Named("link") = res.link, Rcpp::Named("rlink") = res.rlink, Rcpp::Named("decision") = res.decision,
      Rcpp::Named("best") = best, Rcpp::Named("score") = res.score, Rcpp::Named("margin") = na(res.margin),
      Rcpp::Named("risk") = na(res.risk), Rcpp::Named("sd") = res.sd, Rcpp::Named("var") = res.var,
      Rcpp::Named("lookahead") = res.lookahead);
  if (table) {
    Eigen::MatrixXd red = res.reduction, sc = res.table_score;
    for (Eigen::Index i = 0; i < red.size(); ++i) if (std::isnan(red.data()[i])) red.data()[i] = NA_REAL;
    for (Eigen::Index i = 0; i < sc.size(); ++i) if (std::isnan(sc.data()[i])) sc.data()[i] = NA_REAL;
    out["reduction"] = red;
    out["table_score"] = sc;
  }
  return out;
}

// The definitions of the helpers of glue.h and glue-fit.h, compiled here once.
#include "glue-impl.h"
