// The glue of the statistics of chunks of rows (fgseq_stats(), fgseq_chunks()): the moments of a
// chunk, of each group, their merges, and the standardization and whitening from them; and the
// conversions of measurements, moments and column statistics that the other areas share (src/glue.h).
#include "glue.h"

#include <fgseq/common/measurements.hpp>
#include <fgseq/common/stats.hpp>
#include <fgseq/common/whiten.hpp>

#include <string>
#include <vector>

namespace glue {

// The measurements of a fit, from the list R builds (measurement_index() in R/measurements.R):
// `needs`, one integer vector of 0-based measurement indices per group, and `cost`, one cost per
// measurement.
fgseq::Measurements measurements_from(const Rcpp::List& m) {
  const Rcpp::List needs = m["needs"];
  std::vector<std::vector<Eigen::Index>> idx(static_cast<size_t>(needs.size()));
  for (R_xlen_t g = 0; g < needs.size(); ++g) {
    const std::vector<int> v = Rcpp::as<std::vector<int>>(needs[g]);
    idx[static_cast<size_t>(g)].assign(v.begin(), v.end());
  }
  return fgseq::Measurements(std::move(idx), Rcpp::as<std::vector<double>>(m["cost"]));
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

}  // namespace glue

// Centred moments of x (n x p) and y (n x P) with optional weights: the statistics of one chunk of rows.
// [[Rcpp::export(.moments)]]
Rcpp::List moments_cpp(const Eigen::Map<Eigen::MatrixXd>& x, const Eigen::Map<Eigen::MatrixXd>& y,
                       const Eigen::Map<Eigen::VectorXd>& weights, const std::string& gram) {
  // as glue::services() gives them: R's interrupt check, and with gram = "blas" R's BLAS
  const fgseq::RankUpdate update = gram == "blas" ? fgseq::RankUpdate(glue::blas_rank_update) : fgseq::RankUpdate();
  return glue::moments_list(fgseq::centred_moments(x, y, weights, [] { Rcpp::checkUserInterrupt(); }, update));
}

// The moments of the union of two chunks of rows.
// [[Rcpp::export(.merge_moments)]]
Rcpp::List merge_moments_cpp(const Rcpp::List& a, const Rcpp::List& b) {
  return glue::moments_list(fgseq::merge_moments(glue::moments_from(a), glue::moments_from(b)));
}

// The centred moments of each group's columns by themselves (fgseq::group_moments): a list of one
// moments list (as .moments gives, of no response) per group. weights: n weights or numeric(0);
// group_of: 0-based group of each column.
// [[Rcpp::export(.group_moments)]]
Rcpp::List group_moments_cpp(const Eigen::Map<Eigen::MatrixXd>& x, const Eigen::Map<Eigen::VectorXd>& weights,
                             const std::vector<int>& group_of, int n_groups) {
  const std::vector<fgseq::Moments> m = fgseq::group_moments(x, weights, fgseq::make_layout(group_of, n_groups));
  Rcpp::List out(m.size());
  for (size_t g = 0; g < m.size(); ++g) out[g] = glue::moments_list(m[g]);
  return out;
}

// The moments of each group over the union of two chunks of rows (lists of .group_moments).
// [[Rcpp::export(.merge_group_moments)]]
Rcpp::List merge_group_moments_cpp(const Rcpp::List& a, const Rcpp::List& b) {
  if (a.size() != b.size()) Rcpp::stop("the chunks' moments have different groups");
  Rcpp::List out(a.size());
  for (R_xlen_t g = 0; g < a.size(); ++g)
    out[g] = glue::moments_list(fgseq::merge_moments(glue::moments_from(a[g]), glue::moments_from(b[g])));
  return out;
}

// Standardization and group whitening from the merged moments of each group (.group_moments), as
// .moments_whitening gives them from the moments of all columns: the same list.
// [[Rcpp::export(.group_moments_whitening)]]
Rcpp::List group_moments_whitening_cpp(const Rcpp::List& moments, const std::vector<int>& group_of, int n_groups,
                                       double rank_tol) {
  std::vector<fgseq::Moments> m;
  for (R_xlen_t g = 0; g < moments.size(); ++g) m.push_back(glue::moments_from(moments[g]));
  fgseq::GramStats st;
  const fgseq::Whitened wh = fgseq::group_moments_whitening(std::move(m), fgseq::make_layout(group_of, n_groups), rank_tol, st);
  return glue::whitening_list(st, wh);
}

// Standardization (the constant-column rule) and group whitening from merged moments, as the core
// does after its own pass: mean, scale, constant (one per column), T (one whitening map per group)
// and rank. group_of: 0-based group of each column.
// [[Rcpp::export(.moments_whitening)]]
Rcpp::List moments_whitening_cpp(const Rcpp::List& moments, const std::vector<int>& group_of, int n_groups,
                                 double rank_tol) {
  const fgseq::GramStats st = fgseq::standardize(glue::moments_from(moments));
  const fgseq::Whitened wh = fgseq::whiten_groups(st, fgseq::make_layout(group_of, n_groups), rank_tol);
  return glue::whitening_list(st, wh);
}
