// The glue of the GLM fits (see fgseq.cpp): one chunk's sums and gains and the path from chunks of
// rows, and the one definition of the GLM fits that fit_path() calls (FGSEQ_DEFINE_GLM, see
// common/compiled.hpp; sequence/fit_glm.hpp), so that only this unit compiles the GLM models.
#define FGSEQ_DEFINE_GLM  // the GLM fits are defined here (common/compiled.hpp)
#include "glue-fit.h"

#include <fgseq/glm/cross.hpp>
#include <fgseq/sequence/fit_glm.hpp>

#include <string>
#include <vector>

// [[Rcpp::depends(RcppEigen)]]

using namespace glue;

namespace {

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

// One chunk's additive parts of a GLM fit at theta ((m + 1) x P) over the selected whitened columns
// (see columns_from): loss, deviance, gradient, hessian, xr, rsum (fgseq::GlmSums).
// y and offset: n x P matrices; threads: of the products over the chunk's rows (chunk_threads() in R).
// [[Rcpp::export(.glm_chunk_sums)]]
Rcpp::List glm_chunk_sums_cpp(const Eigen::Map<Eigen::MatrixXd>& x, const Eigen::Map<Eigen::MatrixXd>& y,
                              const Eigen::Map<Eigen::VectorXd>& weights, const Eigen::Map<Eigen::MatrixXd>& offset,
                              const std::string& family, const Rcpp::List& columns,
                              const Eigen::Map<Eigen::MatrixXd>& theta, int threads) {
  fgseq::GramStats st;
  fgseq::SelectedColumns sel;
  columns_from(columns, st, sel);
  const fgseq::GlmSums s = fgseq::glm_chunk_sums(fgseq::DenseDesign(x), y, weights, offset,
                                                 fgseq::from_name<fgseq::Family>(family), st, sel, theta, threads);
  return Rcpp::List::create(Rcpp::Named("loss") = s.loss, Rcpp::Named("deviance") = s.deviance,
                            Rcpp::Named("gradient") = s.gradient, Rcpp::Named("hessian") = s.hessian,
                            Rcpp::Named("xr") = s.xr, Rcpp::Named("rsum") = s.rsum);
}

// One chunk's weighted cross-product of the columns `cols` (0-based) of x (n x p) centred at `mean`
// (one value per column of cols): sum_i w_i (x_i - mean)(x_i - mean)' (q x q, symmetric), by the
// blocked kernels of the GLM's Hessians (kernels::weighted_cross()) on `threads` threads: the chunk pass
// that stores a fit's moments (moments_cross_part(), R/chunks.R).
// [[Rcpp::export(.centred_cross)]]
Eigen::MatrixXd centred_cross_cpp(const Eigen::Map<Eigen::MatrixXd>& x, const std::vector<int>& cols,
                                  const Eigen::Map<Eigen::VectorXd>& mean, const Eigen::Map<Eigen::VectorXd>& weights,
                                  int threads) {
  const Eigen::Index n = x.rows(), q = static_cast<Eigen::Index>(cols.size());
  if (mean.size() != q || weights.size() != n) Rcpp::stop("centred_cross: one mean per column and one weight per row are needed");
  Eigen::MatrixXd xc(n, q);
  for (Eigen::Index a = 0; a < q; ++a) {
    if (cols[static_cast<size_t>(a)] < 0 || cols[static_cast<size_t>(a)] >= x.cols()) Rcpp::stop("centred_cross: a column is out of range");
    xc.col(a) = x.col(cols[static_cast<size_t>(a)]).array() - mean(a);
  }
  Eigen::MatrixXd c = fgseq::kernels::weighted_cross(xc, weights, {{0, q, 0, q, true}}, std::max(threads, 1))[0];
  c.triangularView<Eigen::StrictlyUpper>() = c.transpose();
  return c;
}

// One chunk's sums of the quadratic FR gains' pass (fgseq::glm_chunk_gains) at theta over the first
// n_selected groups of `columns` (see columns_from) for the candidate groups that follow them, in one
// vector (fgseq::pack_gain_sums). y and offset: n x P matrices; threads: as for .glm_chunk_sums().
// [[Rcpp::export(.glm_chunk_gains)]]
Eigen::VectorXd glm_chunk_gains_cpp(const Eigen::Map<Eigen::MatrixXd>& x, const Eigen::Map<Eigen::MatrixXd>& y,
                                    const Eigen::Map<Eigen::VectorXd>& weights, const Eigen::Map<Eigen::MatrixXd>& offset,
                                    const std::string& family, const Rcpp::List& columns,
                                    const Eigen::Map<Eigen::MatrixXd>& theta, int n_selected, int threads) {
  fgseq::GramStats st;
  fgseq::SelectedColumns sel;
  columns_from(columns, st, sel);
  return fgseq::pack_gain_sums(fgseq::glm_chunk_gains(fgseq::DenseDesign(x), y, weights, offset,
                                                      fgseq::from_name<fgseq::Family>(family), st, sel, n_selected, theta,
                                                      threads));
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
