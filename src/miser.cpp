// The glue of the Greedy Miser (miser/; see fgseq.cpp).
#include "glue.h"

#include <fgseq/miser/boost.hpp>

#include <string>
#include <vector>

// [[Rcpp::depends(RcppEigen)]]

using namespace glue;

// The Greedy Miser (miser/). x: a numeric matrix or a Matrix::dgCMatrix (read in place, histogram
// search only); y: n x P targets (see miser_fit); weights: n positive weights or
// numeric(0); offset: n x P or a 0 x 0 matrix; group_of: 0-based group of each column; measurements:
// the list measurements_from() reads (the measurements each group needs and their costs); control: the
// named list miser() builds (family, paid, split, cost_penalty: the lambda of the paper's equation (5) per unit of the first
// gradient's impurity, max_steps, depth, eta, min_node_size, max_bin, threads, max_time in seconds,
// newton: second-order trees for classification);
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
  ctl.newton = Rcpp::as<bool>(control["newton"]);
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
