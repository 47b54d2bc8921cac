// What the glue's files (src/*.cpp, one per area of the R package) share: the conversions between R's
// lists and the core's types that more than one area reads or returns, defined in src/fit.cpp (a
// fit's services, options and result list) and src/stats.cpp (the others). The core's types are only
// declared here, so that each file includes the core headers of its own area and no others: the
// files compile in parallel, and each core header costs compile time in every file that includes it.
#ifndef FGSEQ_SRC_GLUE_H
#define FGSEQ_SRC_GLUE_H

#include <RcppEigen.h>

#include <fgseq/common/options.hpp>

#include <string>
#include <vector>

namespace fgseq {
struct Control;
struct FitResult;
struct GramStats;
struct Measurements;
struct Moments;
struct Services;
struct Whitened;
}  // namespace fgseq

namespace glue {

// gram (lower triangle) += block' block through the BLAS R is linked to (dsyrk).
void blas_rank_update(Eigen::MatrixXd& gram, const Eigen::Ref<const Eigen::MatrixXd>& block);

// The services of a fit: R's interrupt check; with gram = "blas", the cross-products and the Cholesky
// factorization through the BLAS and LAPACK R is linked to; `progress` (NULL or an R function(done,
// total)) as its progress callback.
fgseq::Services services(const std::string& gram, Rcpp::Nullable<Rcpp::Function> progress);

// The options of a fit, from the named list R builds once (fit_control() in R/fgseq.R).
fgseq::Control control_from(const Rcpp::List& opt);

// The R list of a fitted path (see src/fit.cpp).
Rcpp::List result_list(const fgseq::FitResult& fit);

// The measurements of a fit, from the list R builds (measurement_index() in R/measurements.R):
// `needs`, one integer vector of 0-based measurement indices per group, and `cost`, one cost per
// measurement.
fgseq::Measurements measurements_from(const Rcpp::List& m);

// Centred moments from and to the list of .moments (n, weight_sum, mean, y_mean, xx, xy, yy).
fgseq::Moments moments_from(const Rcpp::List& m);
Rcpp::List moments_list(const fgseq::Moments& m);

// The column statistics a GLM fit from chunks uses: mean, scale, constant (one per column of x).
fgseq::GramStats column_stats_from(const Rcpp::List& l);

// The column statistics and whitening maps of .moments_whitening and .group_moments_whitening: mean,
// scale, constant (one per column), T (one map per group) and rank.
Rcpp::List whitening_list(const fgseq::GramStats& st, const fgseq::Whitened& wh);

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

}  // namespace glue

#endif
