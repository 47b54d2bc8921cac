// The glue of the anytime prediction of partially computed rows (greedy/predict.hpp).
#include "glue.h"

#include <fgseq/greedy/predict.hpp>

#include <string>
#include <vector>

namespace {

// Calls f with x read in place: a sparse map of a Matrix::dgCMatrix (checked in R) or a map of a numeric
// matrix.
template <typename F>
auto with_matrix(SEXP x, F f) {
  if (Rf_isS4(x)) {
    const Eigen::Map<Eigen::SparseMatrix<double>> m = Rcpp::as<Eigen::Map<Eigen::SparseMatrix<double>>>(x);
    return f(Eigen::Map<const Eigen::SparseMatrix<double>>(m.rows(), m.cols(), m.nonZeros(), m.outerIndexPtr(), m.innerIndexPtr(), m.valuePtr()));
  }
  return f(Rcpp::as<Eigen::Map<Eigen::MatrixXd>>(x));
}

}  // namespace

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
