// The glue of the Sparse baseline (sparse_sequence()): the cost-weighted group lasso path.
#include "glue.h"

#include <fgseq/common/family.hpp>
#include <fgseq/sparse/grouplasso.hpp>

#include <string>
#include <vector>

// The cost-weighted group lasso path (sparse/grouplasso.hpp) on whitened groups z (n x r, group g's `sizes[g]`
// columns after group g - 1's), with weights w and offset (numeric(0): none), multipliers m, family
// "gaussian", "binomial" or "poisson". Returns lambda, beta (r x nlambda), a0, entry (NA: not entered)
// and kkt.
// [[Rcpp::export(.group_lasso_path)]]
Rcpp::List group_lasso_path_cpp(const Eigen::Map<Eigen::MatrixXd>& z, const std::vector<int>& sizes,
                                const Eigen::Map<Eigen::VectorXd>& y, const Eigen::Map<Eigen::VectorXd>& w,
                                const Eigen::Map<Eigen::VectorXd>& offset, const Eigen::Map<Eigen::VectorXd>& m,
                                const std::string& family, int nlambda, double lambda_min_ratio) {
  fgseq::GroupLasso gl(z, std::vector<Eigen::Index>(sizes.begin(), sizes.end()), y, w, offset, m,
                       fgseq::from_name<fgseq::Family>(family));
  fgseq::GroupLassoPath p = gl.path(nlambda, lambda_min_ratio, [] { Rcpp::checkUserInterrupt(); });
  Rcpp::NumericVector entry(p.entry.data(), p.entry.data() + p.entry.size());
  for (R_xlen_t g = 0; g < entry.size(); ++g) if (std::isnan(entry[g])) entry[g] = NA_REAL;
  return Rcpp::List::create(Rcpp::Named("lambda") = p.lambda, Rcpp::Named("beta") = p.beta, Rcpp::Named("a0") = p.a0,
                            Rcpp::Named("entry") = entry, Rcpp::Named("kkt") = p.kkt);
}
