// The response families, shared by the GLM models (glm/: binomial, Poisson, multinomial, with
// their risk and its derivatives) and the Greedy Miser's losses (miser/: gaussian, binomial,
// multinomial, whose negative gradients are y - mu). A family is its value of Family, its name
// (Names<Family>) and its case in each member of FamilyOps: adding one is done here. No switch over
// Family has a default, so the compiler names each case a new family lacks (make test-core builds
// with -Werror=switch); the unreachable end of each member throws.
#ifndef FGSEQ_COMMON_FAMILY_HPP
#define FGSEQ_COMMON_FAMILY_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "options.hpp"
#include "types.hpp"

namespace fgseq {

enum class Family { Gaussian, MGaussian, Binomial, Poisson, Multinomial };
template <>
struct Names<Family> {
  static constexpr const char* what = "family";
  static constexpr std::pair<Family, const char*> table[] = {{Family::Gaussian, "gaussian"},
                                                             {Family::MGaussian, "mgaussian"},
                                                             {Family::Binomial, "binomial"},
                                                             {Family::Poisson, "poisson"},
                                                             {Family::Multinomial, "multinomial"}};
};

// Mean, loss, deviance and Hessian weights of a family, over all rows at once.
struct FamilyOps {
  Family family;

  // Whether P columns of y suit the family: one (gaussian: the response; binomial: 0/1 or the
  // proportion of successes; poisson: the counts), at least one (mgaussian: the responses), at least
  // two (multinomial: one indicator column per class).
  bool columns_fit(Index P) const {
    switch (family) {
      case Family::MGaussian:
        return P >= 1;
      case Family::Multinomial:
        return P >= 2;
      case Family::Gaussian:
      case Family::Binomial:
      case Family::Poisson:
        return P == 1;
    }
    unknown();
  }

  // Whether the fit is least squares (the linear engine: gaussian, mgaussian).
  bool least_squares() const {
    switch (family) {
      case Family::Gaussian:
      case Family::MGaussian:
        return true;
      case Family::Binomial:
      case Family::Poisson:
      case Family::Multinomial:
        return false;
    }
    unknown();
  }

  // Whether the loss couples the response columns: several columns that are not least squares (the
  // softmax of the multinomial; mgaussian's columns are separate least squares). Its Hessian then has a
  // block for every pair of columns, (m1 K)^2 in all, so Newton's directions come from products with it.
  bool couples_columns() const { return columns_fit(2) && !least_squares(); }

  // Whether adding the same constant to every linear predictor of a row leaves its mean unchanged
  // (the multinomial's softmax), so that constants are defined up to a common shift.
  bool shift_invariant() const {
    switch (family) {
      case Family::Multinomial:
        return true;
      case Family::Gaussian:
      case Family::MGaussian:
      case Family::Binomial:
      case Family::Poisson:
        return false;
    }
    unknown();
  }

  // Intercepts of the null model (1 x P): the link of the (weighted) mean response ybar, kept inside
  // the family's range
  MatrixXd null_intercepts(const VectorXd& ybar) const {
    MatrixXd a(1, ybar.size());
    for (Index c = 0; c < ybar.size(); ++c) {
      const double m = std::min(std::max(ybar(c), 1e-10), 1 - 1e-10);
      switch (family) {
        case Family::Binomial:
          a(0, c) = std::log(m / (1 - m));
          break;
        case Family::Poisson:
          a(0, c) = std::log(std::max(ybar(c), 1e-10));
          break;
        case Family::Multinomial:
          a(0, c) = std::log(m);
          break;
        case Family::Gaussian:
        case Family::MGaussian:
          a(0, c) = ybar(c);
          break;
      }
    }
    return a;
  }

  // mu = grad Phi(eta), row by row
  MatrixXd mean(const MatrixXd& eta) const {
    switch (family) {
      case Family::Binomial:
        return eta.unaryExpr([](double e) { return 1.0 / (1.0 + std::exp(-e)); });
      case Family::Poisson:
        return eta.array().exp().matrix();
      case Family::Multinomial: {
        MatrixXd mu = eta.colwise() - eta.rowwise().maxCoeff();
        mu = mu.array().exp().matrix();
        const VectorXd s = mu.rowwise().sum();
        return s.cwiseInverse().asDiagonal() * mu;
      }
      case Family::Gaussian:
      case Family::MGaussian:
        return eta;
    }
    unknown();
  }

  // sum_i w_i [Phi(eta_i) - y_i' eta_i], the weighted negative log-likelihood up to a constant of y;
  // the Gaussian families' 1/2 ||y_i - eta_i||^2 includes that constant (half the deviance)
  double loss(const MatrixXd& eta, const MatrixXd& y, const VectorXd& w) const {
    VectorXd phi(eta.rows());
    switch (family) {
      case Family::Binomial:
        phi = eta.col(0).unaryExpr([](double e) { return std::max(e, 0.0) + std::log1p(std::exp(-std::abs(e))); });
        break;
      case Family::Poisson:
        phi = eta.col(0).array().exp().matrix();
        break;
      case Family::Multinomial: {
        const VectorXd m = eta.rowwise().maxCoeff();
        phi = m + ((eta.colwise() - m).array().exp().rowwise().sum().log()).matrix();
        break;
      }
      case Family::Gaussian:
      case Family::MGaussian:
        return 0.5 * w.dot((y - eta).rowwise().squaredNorm());
    }
    const VectorXd ye = eta.cwiseProduct(y).rowwise().sum();
    return w.dot(phi - ye);
  }

  // 2 * sum_i w_i [l_saturated - l(mu_i)]
  double deviance(const MatrixXd& mu, const MatrixXd& y, const VectorXd& w) const {
    double d = 0.0;
    for (Index i = 0; i < mu.rows(); ++i) {
      double di = 0.0;
      switch (family) {
        case Family::Binomial: {
          const double yi = y(i, 0), m = mu(i, 0);
          if (yi > 0) di -= yi * std::log(m / yi);
          if (yi < 1) di -= (1 - yi) * std::log((1 - m) / (1 - yi));
          break;
        }
        case Family::Poisson: {
          const double yi = y(i, 0), m = mu(i, 0);
          di = (yi > 0 ? yi * std::log(yi / m) : 0.0) - (yi - m);
          break;
        }
        case Family::Multinomial:
          for (Index c = 0; c < mu.cols(); ++c)
            if (y(i, c) > 0) di -= y(i, c) * std::log(mu(i, c) / y(i, c));
          break;
        case Family::Gaussian:
        case Family::MGaussian:
          di = 0.5 * (y.row(i) - mu.row(i)).squaredNorm();
          break;
      }
      d += 2.0 * w(i) * di;
    }
    return d;
  }

  // A bound v >= d mu / d eta of a one-response family over the rows, given the means mu (n x 1): the
  // binomial's 1/4 holds for every eta; the Poisson's d mu / d eta = mu is unbounded, so v is the
  // largest mean, which bounds it only near mu (curvature_bound_global() false: a caller checks the
  // step it takes against the bound); 1 for least squares.
  double curvature_bound(const MatrixXd& mu) const {
    switch (family) {
      case Family::Binomial:
        return 0.25;
      case Family::Poisson:
        return std::max(0.0, mu.col(0).maxCoeff());
      case Family::Gaussian:
      case Family::MGaussian:
      case Family::Multinomial:
        return 1.0;
    }
    unknown();
  }
  bool curvature_bound_global() const {
    switch (family) {
      case Family::Poisson:
        return false;
      case Family::Gaussian:
      case Family::MGaussian:
      case Family::Binomial:
      case Family::Multinomial:
        return true;
    }
    unknown();
  }

  // Hessian weight of the (c, d) pair of linear predictors: d mu_c / d eta_d, per row
  VectorXd hessian_weight(const MatrixXd& mu, Index c, Index d) const {
    switch (family) {
      case Family::Binomial:
        return mu.col(0).cwiseProduct((1.0 - mu.col(0).array()).matrix());
      case Family::Poisson:
        return mu.col(0);
      case Family::Multinomial:
        if (c == d) return mu.col(c).cwiseProduct((1.0 - mu.col(c).array()).matrix());
        return -mu.col(c).cwiseProduct(mu.col(d));
      case Family::Gaussian:
      case Family::MGaussian:
        return VectorXd::Constant(mu.rows(), c == d ? 1.0 : 0.0);
    }
    unknown();
  }

 private:
  // The end of a switch that no family reaches (a value outside the enum).
  [[noreturn]] void unknown() const { no_case(family, "FamilyOps"); }
};

}  // namespace fgseq

#endif
