// The greedy engine shared by CS-G-OMP, CS-G-FR and Doubling (Hu, Grubb, Bagnell & Hebert 2016,
// Algorithm 1, section 2 "CS-G-FR", Algorithm 2), working in whitened feature space after one pass
// over the data.
//
// Notation (whitened coordinates, q of them): C = Sigma~ + lambda I, rho~ = T' rho.
// The selected coordinates S are spanned by a C-orthonormal basis Q (Q'CQ = I, columns supported on S),
// kept with P = C Q and z = Q' rho~. Then
//   w(S) = Q z,  F(S) = ||z||^2 / 2,  b = rho~ - C w(S) = rho~ - P z   (gradient, paper's b_g^S),
//   M_hh = C_hh - P_h P_h'   (Schur complement of C_SS in C, the block of group h),
//   FR gain of h = b_h' pinv(M_hh) b_h / 2.
// Adding group g is one block step of Gram-Schmidt in the C inner product (a block sweep): with
// V = E_g - Q P_g' (re-orthogonalized once), M_gg = V'CV = U D U', the new basis columns are
// V U D^-1/2 for the eigenvalues D above the pivot tolerance, so rank-deficient and collinear groups
// (lambda = 0) add only their new directions. Every quantity is then updated by a rank-r_g downdate;
// FR costs about what OMP costs.
#ifndef FGSEQ_ENGINE_HPP
#define FGSEQ_ENGINE_HPP

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "stats.hpp"
#include "whiten.hpp"

namespace fgseq {

enum class Method { OMP, FR, Doubling };
enum class Criterion { Whitened, L2, Linf };

struct Control {
  Method method = Method::OMP;
  Criterion criterion = Criterion::Whitened;  // OMP only
  bool cost_sensitive = true;
  double lambda = 1e-6;
  Index max_steps = std::numeric_limits<Index>::max();
  double max_cost = std::numeric_limits<double>::infinity();
  double c_min = std::numeric_limits<double>::quiet_NaN();  // Doubling; NaN = smallest group cost
  double rank_tol = 1e-9;   // whitening: eigenvalues <= rank_tol * largest are dropped
  double pivot_tol = 1e-9;  // Schur complement eigenvalues <= pivot_tol * (1 + lambda) add nothing
  double zero_tol = 1e-14;  // raw scores <= zero_tol * yy count as exactly 0
  double tie_tol = 1e-10;   // scores within tie_tol (relative) of the best tie; first group wins
};

struct Path {
  std::vector<Index> sequence;    // group indices in selection order (K)
  std::vector<double> score;      // selection score of each chosen group (K)
  std::vector<double> objective;  // F after steps 0..K (K+1)
  MatrixXd w;                     // q x (K+1) whitened coefficients after steps 0..K
};

class GreedyEngine {
 public:
  GreedyEngine(const Whitened& wh, const GramStats& st, const GroupLayout& lay, const std::vector<double>& cost,
               const Control& ctl)
      : wh_(wh), st_(st), lay_(lay), cost_(cost), ctl_(ctl) {
    if (static_cast<Index>(cost.size()) != lay.size())
      throw std::invalid_argument("GreedyEngine: one cost per group is needed");
  }

  Path run(const InterruptCheck& check_interrupt = InterruptCheck()) {
    const Index q = wh_.q, G = lay_.size();
    Q_.resize(q, q);
    P_.resize(q, q);
    z_.resize(q);
    m_ = 0;
    b_ = wh_.rho;
    selected_.assign(static_cast<size_t>(G), false);
    const bool need_schur = ctl_.method != Method::OMP;
    if (need_schur) {
      M_.assign(static_cast<size_t>(G), MatrixXd());
      for (Index h = 0; h < G; ++h) M_[h] = block(wh_.C, h, h);
    }
    // groups that can be selected: rank > 0
    Index available = 0;
    double smallest = std::numeric_limits<double>::infinity();
    for (Index h = 0; h < G; ++h)
      if (rank(h) > 0) {
        ++available;
        smallest = std::min(smallest, cost_[h]);
      }
    const double c_min = std::isnan(ctl_.c_min) ? smallest : ctl_.c_min;

    Path path;
    path.objective.push_back(0.0);
    std::vector<VectorXd> w_steps{VectorXd::Zero(q)};
    double total_cost = 0.0, F = 0.0;
    const Index max_steps = std::min(ctl_.max_steps, available);
    for (Index step = 0; step < max_steps; ++step) {
      if (check_interrupt) check_interrupt();
      std::vector<bool> cand = candidates(step, total_cost, c_min);
      double best_score = 0.0;
      const Index g = choose(cand, best_score);
      if (g < 0) break;
      if (total_cost + cost_[g] > ctl_.max_cost * (1 + 1e-12)) break;
      const VectorXd z_new = add_group(g, need_schur);
      F += 0.5 * z_new.squaredNorm();
      total_cost += cost_[g];
      VectorXd w = w_steps.back();
      if (z_new.size() > 0) w.noalias() += Q_.middleCols(m_ - z_new.size(), z_new.size()) * z_new;
      w_steps.push_back(std::move(w));
      path.sequence.push_back(g);
      path.score.push_back(best_score);
      path.objective.push_back(F);
    }
    path.w.resize(q, static_cast<Index>(w_steps.size()));
    for (size_t k = 0; k < w_steps.size(); ++k) path.w.col(static_cast<Index>(k)) = w_steps[k];
    return path;
  }

 private:
  const Whitened& wh_;
  const GramStats& st_;
  const GroupLayout& lay_;
  const std::vector<double>& cost_;
  Control ctl_;
  MatrixXd Q_, P_;          // q x q storage, first m_ columns in use
  VectorXd z_, b_;
  Index m_ = 0;
  std::vector<MatrixXd> M_;  // Schur complement blocks of unselected groups (FR, Doubling)
  std::vector<bool> selected_;

  Index rank(Index h) const { return wh_.rank[static_cast<size_t>(h)]; }
  Index offset(Index h) const { return wh_.offset[static_cast<size_t>(h)]; }
  MatrixXd block(const MatrixXd& A, Index g, Index h) const {
    return A.block(offset(g), offset(h), rank(g), rank(h));
  }

  std::vector<bool> candidates(Index step, double total_cost, double c_min) const {
    const Index G = lay_.size();
    std::vector<bool> cand(static_cast<size_t>(G), false);
    bool any = false;
    for (Index h = 0; h < G; ++h) {
      if (selected_[h] || rank(h) == 0) continue;
      bool ok = true;
      if (ctl_.method == Method::Doubling) {
        const double limit = step == 0 ? c_min : total_cost;
        ok = cost_[h] <= limit * (1 + 1e-12);
      }
      cand[h] = ok;
      any = any || ok;
    }
    if (!any && ctl_.method == Method::Doubling) {
      // not doubling capable here: fall back to the remaining groups of least cost
      double least = std::numeric_limits<double>::infinity();
      for (Index h = 0; h < G; ++h)
        if (!selected_[h] && rank(h) > 0) least = std::min(least, cost_[h]);
      for (Index h = 0; h < G; ++h)
        cand[h] = !selected_[h] && rank(h) > 0 && cost_[h] <= least * (1 + 1e-12);
    }
    return cand;
  }

  // Raw score of a candidate group (before dividing by its cost).
  double raw_score(Index h) const {
    const auto bh = b_.segment(offset(h), rank(h));
    if (ctl_.method == Method::OMP) {
      switch (ctl_.criterion) {
        case Criterion::Whitened:
          return bh.squaredNorm();
        case Criterion::L2:
          return (wh_.S[static_cast<size_t>(h)] * bh).squaredNorm();
        case Criterion::Linf:
          return (wh_.S[static_cast<size_t>(h)] * bh).cwiseAbs2().maxCoeff();
      }
    }
    return 0.5 * pinv_quad(M_[static_cast<size_t>(h)], bh);
  }

  // b' pinv(M) b, eigenvalues below the pivot tolerance ignored
  double pinv_quad(const MatrixXd& M, const Eigen::Ref<const VectorXd>& bh) const {
    const double tol = ctl_.pivot_tol * (1.0 + ctl_.lambda);
    if (M.rows() == 1) return M(0, 0) > tol ? bh(0) * bh(0) / M(0, 0) : 0.0;
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(M);
    const VectorXd u = es.eigenvectors().transpose() * bh;
    double s = 0.0;
    for (Index i = 0; i < u.size(); ++i)
      if (es.eigenvalues()(i) > tol) s += u(i) * u(i) / es.eigenvalues()(i);
    return s;
  }

  Index choose(const std::vector<bool>& cand, double& best_score) const {
    const Index G = lay_.size();
    std::vector<double> score(static_cast<size_t>(G), -1.0);
    double best = -1.0;
    for (Index h = 0; h < G; ++h) {
      if (!cand[h]) continue;
      double s = raw_score(h);
      if (!(s > ctl_.zero_tol * st_.yy)) s = 0.0;
      if (ctl_.cost_sensitive) s /= cost_[h];
      score[h] = s;
      best = std::max(best, s);
    }
    if (best < 0) return -1;
    for (Index h = 0; h < G; ++h)
      if (cand[h] && score[h] >= best - ctl_.tie_tol * std::abs(best)) {
        best_score = score[h];
        return h;
      }
    return -1;
  }

  // Add group g: block Gram-Schmidt step in the C inner product; returns the new entries of z.
  VectorXd add_group(Index g, bool need_schur) {
    const Index q = wh_.q, r = rank(g), off = offset(g);
    MatrixXd V = MatrixXd::Zero(q, r);
    V.middleRows(off, r).setIdentity();
    if (m_ > 0) {
      auto Q = Q_.leftCols(m_);
      auto P = P_.leftCols(m_);
      V.noalias() -= Q * P.middleRows(off, r).transpose();
      V.noalias() -= Q * (P.transpose() * V);  // second pass keeps Q C-orthonormal
    }
    MatrixXd CV = wh_.C * V;
    MatrixXd Mgg = V.transpose() * CV;
    Mgg = 0.5 * (Mgg + Mgg.transpose()).eval();
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(Mgg);
    const double tol = ctl_.pivot_tol * (1.0 + ctl_.lambda);
    Index k = 0;
    for (Index i = 0; i < r; ++i)
      if (es.eigenvalues()(i) > tol) ++k;
    const MatrixXd U = es.eigenvectors().rightCols(k);
    const VectorXd dinv = es.eigenvalues().tail(k).cwiseSqrt().cwiseInverse();
    const MatrixXd Qn = V * U * dinv.asDiagonal();
    const MatrixXd Pn = CV * U * dinv.asDiagonal();
    const VectorXd zn = Qn.transpose() * wh_.rho;

    Q_.middleCols(m_, k) = Qn;
    P_.middleCols(m_, k) = Pn;
    z_.segment(m_, k) = zn;
    m_ += k;
    selected_[g] = true;
    b_.noalias() -= Pn * zn;
    if (need_schur) {
      for (Index h = 0; h < lay_.size(); ++h) {
        if (selected_[h] || rank(h) == 0) continue;
        const auto Ph = Pn.middleRows(offset(h), rank(h));
        M_[h].noalias() -= Ph * Ph.transpose();
      }
      M_[g].resize(0, 0);
    }
    return zn;
  }
};

// Coefficients on the original scale of x: beta_g = T_g w_g / sd, a0 = mean(y) - mean(x)' beta.
inline void original_scale(const Path& path, const Whitened& wh, const GramStats& st, const GroupLayout& lay,
                           MatrixXd& beta, VectorXd& a0) {
  const Index K1 = path.w.cols();
  beta = MatrixXd::Zero(lay.p, K1);
  for (Index g = 0; g < lay.size(); ++g) {
    const Index r = wh.rank[static_cast<size_t>(g)];
    if (r == 0) continue;
    const MatrixXd bg = wh.T[static_cast<size_t>(g)] * path.w.middleRows(wh.offset[static_cast<size_t>(g)], r);
    const auto& cols = lay.cols[static_cast<size_t>(g)];
    for (size_t a = 0; a < cols.size(); ++a) {
      const Index j = cols[a];
      if (st.constant[static_cast<size_t>(j)]) continue;
      beta.row(j) = bg.row(static_cast<Index>(a)) / st.scale(j);
    }
  }
  a0 = VectorXd::Constant(K1, st.y_mean) - beta.transpose() * st.mean;
}

}  // namespace fgseq

#endif
