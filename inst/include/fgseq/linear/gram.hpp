// The linear model on the p x p Gram matrix (gaussian and mgaussian, the default engine): CS-G-OMP,
// CS-G-FR and Doubling from the statistics of one pass over the data (common/stats.hpp, common/whiten.hpp).
#ifndef FGSEQ_LINEAR_GRAM_HPP
#define FGSEQ_LINEAR_GRAM_HPP

#include <Eigen/Dense>
#include <vector>

#include "../greedy/model.hpp"
#include "../common/kernels.hpp"
#include "../common/stats.hpp"
#include "../common/whiten.hpp"

namespace fgseq {

// The linear (Gaussian, multi-response Gaussian) model in whitened feature space, after one pass
// over the data.
//
// Notation (whitened coordinates, q of them): C = Sigma~ + lambda I, rho~ = T' rho (q x P).
// The selected coordinates S are spanned by a C-orthonormal basis Q (Q'CQ = I, columns supported on S),
// kept with P = C Q and z = Q' rho~. Then
//   w(S) = Q z,  F(S) = ||z||_F^2 / 2,  b = rho~ - C w(S) = rho~ - P z   (gradient, paper's b_g^S),
//   M_hh = C_hh - P_h P_h'   (Schur complement of C_SS in C, the block of group h),
//   FR gain of h = tr(b_h' pinv(M_hh) b_h) / 2.
// Adding group g is one block step of Gram-Schmidt in the C inner product (a block sweep): with
// V = E_g - Q P_g' (re-orthogonalized once), M_gg = V'CV = U D U', the new basis columns are
// V U D^-1/2 for the eigenvalues D above the pivot tolerance, so rank-deficient and collinear groups
// (lambda = 0) add only their new directions. Every quantity is then updated by a rank-r_g downdate;
// CS-G-FR costs about what CS-G-OMP costs.
class GramModel : public GroupModel {
 public:
  // wh: from whiten() (with C and rho), st and lay: the statistics and layout it was made from.
  GramModel(const Whitened& wh, const GramStats& st, const GroupLayout& lay, const Control& ctl)
      : GroupModel(wh, st, lay, ctl) {
    const Index q = wh_.q, G = lay_.size();
    Q_.resize(q, q);
    P_.resize(q, q);
    z_.resize(q, wh_.rho.cols());
    b_ = wh_.rho;
    if (scoring() == Scores::Gain) {
      schur_.assign(static_cast<size_t>(G), MatrixXd());
      for (Index h = 0; h < G; ++h) schur_[static_cast<size_t>(h)] = wh_.C.block(offset(h), offset(h), rank(h), rank(h));
    }
  }

  double null_risk() const override { return 0.5 * st_.yy_total(); }
  double objective() const override { return 0.5 * z_.topRows(m_).squaredNorm(); }
  double score_scale() const override { return st_.yy_total(); }
  double r2() const override { return st_.yy_total() > 0 ? 2.0 * objective() / st_.yy_total() : 0.0; }
  VectorXd intercept() const override { return st_.y_mean; }
  MatrixXd coef() const override {
    MatrixXd w = MatrixXd::Zero(wh_.q, z_.cols());  // Q z, as w -= Q (-z)
    kernels::sub_mul(w, Q_.leftCols(m_), MatrixXd(-z_.topRows(m_)));
    return w;
  }

  double raw_score(Index h) override {
    const auto bh = b_.middleRows(offset(h), rank(h));
    switch (scoring()) {
      case Scores::Gradient:
        return whitened_gradient_score(h, bh);
      case Scores::Gain:
        return schur_gain(h, bh);
    }
    no_case(scoring(), "GramModel::raw_score");
  }

  void add_group(Index g) override {
    const Index q = wh_.q, r = rank(g), off = offset(g);
    MatrixXd V = MatrixXd::Zero(q, r);
    V.middleRows(off, r).setIdentity();
    // the products with q rows run on the core's vector kernels (common/kernels.hpp), on the calling
    // thread: the path is short, and threads started for its small products wait on a BLAS's threads
    // still spinning after the pass over x
    if (m_ > 0) {
      const auto Q = Q_.leftCols(m_);
      const auto P = P_.leftCols(m_);
      kernels::sub_mul(V, Q, MatrixXd(P.middleRows(off, r).transpose()));
      kernels::sub_mul(V, Q, kernels::tmul(P, V));  // second pass keeps Q C-orthonormal
    }
    const MatrixXd CV = kernels::tmul(wh_.C, V);  // C V = C'V (C symmetric)
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
    const MatrixXd zn = Qn.transpose() * wh_.rho;

    Q_.middleCols(m_, k) = Qn;
    P_.middleCols(m_, k) = Pn;
    z_.middleRows(m_, k) = zn;
    m_ += k;
    record(g);
    b_.noalias() -= Pn * zn;
    if (!schur_.empty()) downdate_schur(Pn, g, 1);
  }

 private:
  MatrixXd Q_, P_;  // q x q storage, first m_ columns in use
  MatrixXd z_, b_;  // z: first m_ rows in use (q x P storage); b: q x P
  Index m_ = 0;
};

}  // namespace fgseq

#endif
