// Thin glue between R and the fgseq core: maps R memory without copying, turns option strings into
// enums once, wires R's interrupt check into the core, and returns plain R lists.
#define USE_FC_LEN_T
#include <RcppEigen.h>
#include <R_ext/BLAS.h>
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

fgseq::Method method_from(const std::string& s) {
  if (s == "omp") return fgseq::Method::OMP;
  if (s == "fr") return fgseq::Method::FR;
  if (s == "doubling") return fgseq::Method::Doubling;
  Rcpp::stop("unknown method '%s'", s);
}

fgseq::Criterion criterion_from(const std::string& s) {
  if (s == "whitened") return fgseq::Criterion::Whitened;
  if (s == "l2") return fgseq::Criterion::L2;
  if (s == "linf") return fgseq::Criterion::Linf;
  Rcpp::stop("unknown criterion '%s'", s);
}

}  // namespace

static fgseq::Family family_from(const std::string& s) {
  if (s == "gaussian") return fgseq::Family::Gaussian;
  if (s == "mgaussian") return fgseq::Family::MGaussian;
  if (s == "binomial") return fgseq::Family::Binomial;
  if (s == "poisson") return fgseq::Family::Poisson;
  if (s == "multinomial") return fgseq::Family::Multinomial;
  Rcpp::stop("unknown family '%s'", s);
}

// Fit a sequence. y: n x P response matrix as the core expects it (see fit.hpp); weights: length n
// or 0; offset: n x P or 0 x 0; group_of: 0-based group index of each column; order: 0-based groups
// of a given sequence to evaluate, or empty to select greedily; gram: "blas" forms the cross-product
// with R's BLAS (dsyrk), "eigen" with Eigen; max_time: seconds (Inf: none); progress: NULL or an R
// function(done, total) called after each step.
// [[Rcpp::export(.fit_path)]]
Rcpp::List fit_path_cpp(const Eigen::Map<Eigen::MatrixXd>& x, const Eigen::Map<Eigen::MatrixXd>& y,
                        const Eigen::Map<Eigen::VectorXd>& weights, const Eigen::Map<Eigen::MatrixXd>& offset,
                        const std::vector<int>& group_of, int n_groups, const std::vector<double>& cost,
                        const std::string& family, const std::string& method, const std::string& criterion,
                        const std::string& fr_gain, bool cost_sensitive, double lambda, double max_steps,
                        double max_cost, double c_min, const std::vector<int>& order,
                        const std::string& gram, double max_time, Rcpp::Nullable<Rcpp::Function> progress) {
  fgseq::Control ctl;
  ctl.method = method_from(method);
  ctl.criterion = criterion_from(criterion);
  ctl.fr_gain = fr_gain == "quadratic" ? fgseq::FrGain::Quadratic : fgseq::FrGain::Exact;
  ctl.cost_sensitive = cost_sensitive;
  ctl.lambda = lambda;
  if (R_finite(max_steps)) ctl.max_steps = static_cast<Eigen::Index>(max_steps);
  ctl.max_cost = max_cost;
  ctl.c_min = c_min;  // NA_real_ is a NaN: the default rule
  for (int g : order) ctl.order.push_back(g);  // 0-based; empty: select greedily
  ctl.max_time = max_time;
  fgseq::ProgressCallback report;
  if (progress.isNotNull()) {
    Rcpp::Function f(progress);
    report = [f](Eigen::Index done, Eigen::Index total) { f(static_cast<double>(done), static_cast<double>(total)); };
  }
  const fgseq::FitResult fit = fgseq::fit_path(x, y, weights, offset, group_of, n_groups, cost,
                                               family_from(family), ctl, [] { Rcpp::checkUserInterrupt(); },
                                               gram == "blas" ? fgseq::RankUpdate(blas_rank_update)
                                                              : fgseq::RankUpdate(),
                                               report);

  std::vector<int> sequence;
  for (auto g : fit.path.sequence) sequence.push_back(static_cast<int>(g) + 1);
  std::vector<int> rank;
  for (auto r : fit.rank) rank.push_back(static_cast<int>(r));
  Rcpp::LogicalVector constant(fit.constant.size());
  for (size_t j = 0; j < fit.constant.size(); ++j) constant[j] = fit.constant[j];
  Rcpp::List beta(fit.beta.size());
  for (size_t c = 0; c < fit.beta.size(); ++c) beta[c] = Rcpp::wrap(fit.beta[c]);
  return Rcpp::List::create(
      Rcpp::Named("sequence") = sequence, Rcpp::Named("score") = fit.path.score,
      Rcpp::Named("objective") = fit.path.objective, Rcpp::Named("r2") = fit.path.r2,
      Rcpp::Named("beta") = beta, Rcpp::Named("a0") = fit.a0, Rcpp::Named("constant") = constant,
      Rcpp::Named("rank") = rank, Rcpp::Named("null_risk") = fit.null_risk,
      Rcpp::Named("converged") = fit.converged, Rcpp::Named("partial") = fit.path.partial);
}

// 1-based index of the first column of x with NA, NaN or Inf; 0 when all values are finite.
// [[Rcpp::export(.first_nonfinite_column)]]
int first_nonfinite_column_cpp(const Eigen::Map<Eigen::MatrixXd>& x) {
  return static_cast<int>(fgseq::first_nonfinite_column(x)) + 1;
}
