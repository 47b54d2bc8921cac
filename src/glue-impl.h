// The definitions of the glue's shared helpers (glue.h, glue-fit.h): R's BLAS and LAPACK as the
// services of a fit, the options and moments of a fit from R's lists, and the R lists of its results.
// Included once, at the end of src/fgseq.cpp, so that they are compiled once and the other units parse
// only their declarations (a unit of their own would parse Rcpp and the core's declarations again:
// about 5 s of the compiler's front end against 1 s at the end of fgseq.cpp).
#ifndef FGSEQ_GLUE_IMPL_H
#define FGSEQ_GLUE_IMPL_H

#include "glue-fit.h"

#include <string>
#include <utility>
#include <vector>

namespace glue {

fgseq::Measurements measurements_from(const Rcpp::List& m) {
  const Rcpp::List needs = m["needs"];
  std::vector<std::vector<Eigen::Index>> idx(static_cast<size_t>(needs.size()));
  for (R_xlen_t g = 0; g < needs.size(); ++g) {
    const std::vector<int> v = Rcpp::as<std::vector<int>>(needs[g]);
    idx[static_cast<size_t>(g)].assign(v.begin(), v.end());
  }
  return fgseq::Measurements(std::move(idx), Rcpp::as<std::vector<double>>(m["measurement_cost"]));
}

void blas_rank_update(Eigen::MatrixXd& gram, const Eigen::Ref<const Eigen::MatrixXd>& block) {
  const char uplo = 'L', trans = 'T';
  const int n = static_cast<int>(block.cols()), k = static_cast<int>(block.rows());
  const int lda = static_cast<int>(block.outerStride()), ldc = static_cast<int>(gram.outerStride());
  const double one = 1.0;
  if (n == 0 || k == 0) return;
  F77_CALL(dsyrk)(&uplo, &trans, &n, &k, &one, block.data(), &lda, &one, gram.data(), &ldc FCONE FCONE);
}

bool lapack_cholesky(Eigen::MatrixXd& a) {
  const char uplo = 'L';
  const int n = static_cast<int>(a.rows()), lda = static_cast<int>(a.outerStride());
  int info = 0;
  if (n == 0) return true;
  F77_CALL(dpotrf)(&uplo, &n, a.data(), &lda, &info FCONE);
  return info == 0;
}

void blas_lower_solve(const Eigen::MatrixXd& L, Eigen::MatrixXd& B) {
  const char side = 'L', uplo = 'L', trans = 'N', diag = 'N';
  const int m = static_cast<int>(B.rows()), n = static_cast<int>(B.cols());
  const int lda = static_cast<int>(L.outerStride()), ldb = static_cast<int>(B.outerStride());
  const double one = 1.0;
  if (m == 0 || n == 0) return;
  F77_CALL(dtrsm)(&side, &uplo, &trans, &diag, &m, &n, &one, L.data(), &lda, B.data(), &ldb FCONE FCONE FCONE FCONE);
}

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

Rcpp::List sparse_parts(const fgseq::SparseMatrixXd& b) {
  const auto nnz = static_cast<size_t>(b.nonZeros());
  const auto cols = static_cast<size_t>(b.cols());
  return Rcpp::List::create(
      Rcpp::Named("i") = Rcpp::IntegerVector(b.innerIndexPtr(), b.innerIndexPtr() + nnz),
      Rcpp::Named("p") = Rcpp::IntegerVector(b.outerIndexPtr(), b.outerIndexPtr() + cols + 1),
      Rcpp::Named("x") = Rcpp::NumericVector(b.valuePtr(), b.valuePtr() + nnz),
      Rcpp::Named("dim") = Rcpp::IntegerVector::create(static_cast<int>(b.rows()), static_cast<int>(b.cols())));
}

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

Rcpp::List whitening_list(const fgseq::GramStats& st, const fgseq::Whitened& wh) {
  Rcpp::List T(wh.T.size());
  for (size_t g = 0; g < wh.T.size(); ++g) T[g] = Rcpp::wrap(wh.T[g]);
  Rcpp::LogicalVector constant(st.constant.size());
  for (size_t j = 0; j < st.constant.size(); ++j) constant[j] = st.constant[j];
  return Rcpp::List::create(Rcpp::Named("mean") = st.mean, Rcpp::Named("scale") = st.scale,
                            Rcpp::Named("constant") = constant, Rcpp::Named("T") = T,
                            Rcpp::Named("rank") = std::vector<int>(wh.rank.begin(), wh.rank.end()));
}

fgseq::GramStats column_stats_from(const Rcpp::List& l) {
  fgseq::GramStats st;
  st.mean = Rcpp::as<Eigen::VectorXd>(l["mean"]);
  st.scale = Rcpp::as<Eigen::VectorXd>(l["scale"]);
  const Rcpp::LogicalVector constant = l["constant"];
  st.constant.assign(constant.begin(), constant.end());
  return st;
}

}  // namespace glue

#endif
