// The linear model in sample space, for wide data (p large, possibly larger than n): the same
// selection, refits and path as GramModel (linear/gram.hpp) without any p x p matrix.
//
// Notation as in GramModel. With sw = sqrt(w / W), the whitened columns are
//   A_g = diag(sw) (X_g - 1 m_g') D_g^-1 T_g    (n x r_g; A'A = T' Sigma T, C = A'A + lambda I),
// and the centred response is y~ = diag(sw)(y - 1 ybar') (n x P), so rho~ = A'y~. A C-orthonormal basis
// Q of the selected coordinates is kept together with U = A Q (n x m): the ridge rows of the augmented
// least-squares problem [A; sqrt(lambda) I] w ~ [y~; 0] are carried by Q itself. Then
//   z = U'y~,  F(S) = ||z||^2 / 2,  residual R = y~ - U z,
//   gradient of an unselected group h: b_h = A_h' R           (CS-G-OMP: one pass x'R per step),
//   Schur complement M_hh = (1 + lambda) I - P_h P_h', P_h = A_h' U   (CS-G-FR, Doubling: updated by
//   the new directions, A_h' U_new, one pass x'U_new per step),
// and a new group g is orthogonalized as in GramModel (two passes of block Gram-Schmidt in the C inner
// product, eigenvalues of V'CV above the pivot tolerance kept), with C V = A'(A V) + lambda V formed
// from the n x r_g block A V. Memory: U (n x m) and Q (at most q_S x m), kept in one block per step,
// and the small per-group blocks.
//
// Screening (CS-G-OMP, dense x, ctl.screen): the pass A'R reads a 16-bit copy of A
// (linear/screen.hpp), which gives b~ with ||b~_h - b_h||_F <= beta_h = ||eta_h|| ||R||_F, and so a range for
// each group's score: (||b~_h||_F -+ beta_h)^2 for the whitened criterion, the same with ||S_h b~_h||
// and beta_h ||S_h||_2 for "l2" and "linf". greedy_path() asks for the exact score (b_h = A_h'R from x)
// of the few groups whose range reaches the best. A group's range is not recomputed at every step
// (lazy screening): the range of an earlier step's pass stays a bound once widened by ||A_h||_2 times how far
// the residual has moved since (the distance to a kept residual of a step at or after that pass plus the
// norms of the residual's updates in between; ResidualDrift, linear/screen.hpp), and greedy_path()
// passes over the copy's columns of only those groups whose widened range still reaches the best
// (refresh_ranges()). With costs that
// differ between groups, the expensive ones are passed over at few steps. With one response the copy
// has a coarse level too (8-bit, a range about 300 times wider, exact integer sums: linear/screen.hpp):
// a group's range of an earlier step is first refreshed from that level, and only the groups whose
// coarse range still reaches the best are passed over again at 16 bits (on wide data about one in
// eight), which halves the bytes of a step's screening. The copy costs 2 n q bytes (a quarter of x),
// and n q more for the coarse level. CS-G-FR
// does not screen: near saturation its Schur complements fall to the size of their reduced-precision error
// bounds, and the exact blocks of every group would then have to be formed at once.
#ifndef FGSEQ_LINEAR_SAMPLE_HPP
#define FGSEQ_LINEAR_SAMPLE_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "../common/design.hpp"
#include "../common/kernels.hpp"
#include "../greedy/model.hpp"
#include "screen.hpp"
#include "../common/whiten.hpp"

namespace fgseq {

class SampleModel : public GroupModel {
 public:
  // y: n x P responses (offsets already subtracted); weights: n or empty; bs, wh: from block_stats()
  // and whiten_block_stats() on the same x, weights and layout.
  // poll: checked before each of the model's n-row buffers (sqrt(w / W), the response, the residual;
  // fresh memory of a tall y is slow to touch), where its TimeUp leaves the constructor (the caller
  // has no model: the fit is the null model), and between groups while the screening copy is made (a
  // pass over x), where its TimeUp (max_time spent) leaves the model without a copy, scoring in double
  // precision.
  SampleModel(const Design& x, const Eigen::Ref<const MatrixXd>& y, const VectorXd& weights, const GramStats& st,
              const Whitened& wh, const GroupLayout& lay, const Control& ctl, int threads,
              const InterruptCheck& poll = InterruptCheck())
      : GroupModel(wh, st, lay, ctl), x_(x), pool_(threads) {
    const Index n = x_.rows(), P = y.cols();
    if (poll) poll();
    if (weights.size()) sw_ = (weights / st_.weight_sum).cwiseSqrt();
    else sw_ = VectorXd::Constant(n, std::sqrt(1.0 / st_.weight_sum));
    if (poll) poll();
    yt_.noalias() = sw_.asDiagonal() * (y.rowwise() - st_.y_mean.transpose());
    if (poll) poll();
    R_ = yt_;
    yy_total_ = yt_.squaredNorm();
    wsel_.resize(0, P);
    if (scoring() == Scores::Gradient && ctl_.screen && !x_.is_sparse()) {
      try {
        make_copy(poll);
      } catch (const TimeUp&) {
        copy_ = ScreeningCopy();
      }
    }
    if (scoring() == Scores::Gain) {
      b_.resize(wh_.q, yt_.cols());
      whitened_tmul(yt_, b_);
      schur_.assign(static_cast<size_t>(lay_.size()), MatrixXd());
      for (Index h = 0; h < lay_.size(); ++h)
        schur_[static_cast<size_t>(h)] = (1.0 + ctl_.lambda) * MatrixXd::Identity(rank(h), rank(h));
    }
  }

  double null_risk() const override { return 0.5 * st_.yy_total(); }
  double objective() const override { return 0.5 * zz_; }
  double score_scale() const override { return yy_total_; }
  double r2() const override { return yy_total_ > 0 ? 2.0 * objective() / yy_total_ : 0.0; }
  VectorXd intercept() const override { return st_.y_mean; }
  MatrixXd coef() const override { return scatter(wsel_); }

  double raw_score(Index h) override {
    if (screening()) return whitened_gradient_score(h, whitened_columns(h).transpose() * R_);
    switch (scoring()) {
      case Scores::Gradient:
        if (stale_) {  // one pass over x per step: the gradients of every group at once
          b_.resize(wh_.q, R_.cols());
          whitened_tmul(R_, b_);
          stale_ = false;
        }
        return whitened_gradient_score(h, b_.middleRows(offset(h), rank(h)));
      case Scores::Gain:
        if (static_cast<size_t>(h) < gain_.size() && gain_[static_cast<size_t>(h)] >= 0.0)
          return gain_[static_cast<size_t>(h)];
        return schur_gain(h, b_.middleRows(offset(h), rank(h)));
    }
    no_case(scoring(), "SampleModel::raw_score");
  }

  // CS-G-FR and Doubling: the gains of every candidate of the step at once, on the fit's threads (each
  // group's gain is computed alone, so it does not depend on the threads), the fit's poll checked
  // before each group as greedy_path() checks it before each score; raw_score() reads them (a gain not
  // computed, when the poll stopped them, is computed then)
  void set_candidates(const std::vector<bool>& candidates) override {
    if (scoring() != Scores::Gain) return;
    gain_.assign(static_cast<size_t>(lay_.size()), -1.0);
    const SharedCheck shared(poll_);
    pool_.ranges(lay_.size(), [&](Index h0, Index h1) {
      const InterruptCheck check = shared.check();
      shared.run([&] {
        for (Index h = h0; h < h1; ++h) {
          if (!candidates[static_cast<size_t>(h)] || rank(h) == 0) continue;
          if (check) check();
          gain_[static_cast<size_t>(h)] = schur_gain(h, b_.middleRows(offset(h), rank(h)));
        }
      });
    });
  }

  // Screening: the range from the group's rows b~_h of its last pass over the copy, at an earlier
  // step t0 or this one t. ||b~_h - A_h'R(t0)|| <= eta_h ||R(t0)|| (linear/screen.hpp), and
  // ||A_h'R(t) - A_h'R(t0)|| <= ||A_h||_2 ||R(t) - R(t0)||, with ||R(t) - R(t0)|| bounded by
  // drift_.since(t0) (ResidualDrift, linear/screen.hpp). A group never passed over has the range [0, inf).
  std::pair<double, double> score_range(Index h) override {
    if (!screening()) return SelectionModel::score_range(h);
    const auto hs = static_cast<size_t>(h);
    if (pass_step_[hs] < 0) return {0.0, std::numeric_limits<double>::infinity()};
    const auto bh = b_.middleRows(offset(h), rank(h));
    const MatrixXd& S = wh_.S[hs];
    const double error = beta0_(h) + (pass_step_[hs] == step_ ? 0.0 : norm_a_(h) * drift_.since(pass_step_[hs]));
    return group_score_range(ctl_.criterion, [&] { return bh; }, [&] { return MatrixXd(S * bh); }, error, sigma_[hs]);
  }

  // current: from a pass of this step over the copy's finest level
  bool range_current(Index h) const override {
    const auto hs = static_cast<size_t>(h);
    return !screening() || (pass_step_[hs] == step_ && fine_[hs]);
  }

  // One pass over the copy's columns of these groups, a level finer than each group's range of this
  // step: the coarse level (8-bit) for a group without one (when the copy has that level), the 16-bit
  // level for a group with a coarse range of this step.
  void refresh_ranges(const std::vector<Index>& groups) override {
    if (!screening() || groups.empty()) return;
    std::vector<Index> gs(groups);
    std::sort(gs.begin(), gs.end());
    std::vector<Index> coarse, fine;
    for (Index h : gs)
      (copy_.has_coarse() && pass_step_[static_cast<size_t>(h)] != step_ ? coarse : fine).push_back(h);
    auto rows_of = [&](const std::vector<Index>& hs) {
      std::vector<std::pair<Index, Index>> rows;
      for (Index h : hs)
        if (rank(h) > 0) rows.emplace_back(offset(h), offset(h) + rank(h));
      return rows;
    };
    if (!coarse.empty()) {
      // per column |b~_j - a_j'R| <= alpha_j ||l~|| + gamma_j ||l~ - R||; over a group's columns, the
      // norm of that sum (the triangle inequality), padded for the rounding of its two terms and sum
      const ScreeningCopy::CoarseBound bound = copy_.coarse_rows(R_.col(0), rows_of(coarse), pool_, b_.col(0));
      const double u = std::ldexp(1.0, -53);
      for (Index h : coarse) {
        beta0_(h) = (calpha_group_(h) * bound.norm + cgamma_group_(h) * bound.error) * (1 + 4 * u);
        pass_step_[static_cast<size_t>(h)] = step_;
        fine_[static_cast<size_t>(h)] = false;
      }
    }
    if (!fine.empty()) {
      make_fine(fine);
      copy_.tmul_rows(R_, rows_of(fine), pool_, b_);
      const double rn = R_.norm();
      for (Index h : fine) {
        beta0_(h) = eta_group_(h) * rn;
        pass_step_[static_cast<size_t>(h)] = step_;
        fine_[static_cast<size_t>(h)] = true;
      }
    }
  }

  void add_group(Index g) override {
    const Index r = rank(g), qs = qs_, nb = static_cast<Index>(blocks_.size());
    const MatrixXd Ag = whitened_columns(g);
    MatrixXd VS = MatrixXd::Zero(qs, r);  // rows of V on the selected coordinates; its rows on g are I
    MatrixXd AV = Ag;
    auto c_gram = [&]() {  // V'CV = (AV)'(AV) + lambda V'V
      MatrixXd M = AV.transpose() * AV;
      M.noalias() += ctl_.lambda * (VS.transpose() * VS);
      M.diagonal().array() += ctl_.lambda;
      return MatrixXd(0.5 * (M + M.transpose()));
    };
    // one pass of classical block Gram-Schmidt in the C inner product against the stored blocks (U_t,
    // Q_t): the coefficients of V on every block, Q_t'CV = U_t'(AV) + lambda Q_t'V (Q_t has rows only
    // for the coordinates selected up to its last column), the blocks claimed in turn by the fit's
    // threads; then AV -= sum_t U_t C_t and VS -= sum_t Q_t C_t, in chunks of rows claimed in turn, each
    // over every block (common/kernels.hpp, on one thread per product: each row's sums do not depend
    // on the chunks). Two parallel loops a pass, whatever the number of blocks.
    std::vector<MatrixXd> coef(static_cast<size_t>(nb));
    bool vs_zero = true;  // VS before the first pass: its ridge part of the coefficients is 0
    auto project_out = [&]() {
      if (nb == 0) return;
      pool_.run(nb, 1, [&](Index t0, Index t1) {
        for (Index t = t0; t < t1; ++t) {
          const Block& blk = blocks_[static_cast<size_t>(t)];
          MatrixXd& Ct = coef[static_cast<size_t>(t)];
          Ct = kernels::tmul(blk.U.leftCols(blk.cols), AV, 1);
          if (ctl_.lambda != 0.0 && !vs_zero)
            Ct.noalias() += ctl_.lambda * kernels::tmul(blk.Q.topLeftCorner(blk.rows, blk.cols), VS.topRows(blk.rows), 1);
        }
      });
      const Index nu = (AV.rows() + 15) / 16, qu = (qs + 15) / 16, units = nu + qu;
      const Index chunk = std::max<Index>(4, (units + 4 * pool_.threads() - 1) / (4 * pool_.threads()));
      pool_.run(units, chunk, [&](Index u0, Index u1) {
        for (Index u = u0; u < u1;) {  // the units of AV's rows, then those of VS's
          const bool in_av = u < nu;
          const Index ue = in_av ? std::min(u1, nu) : u1, base = in_av ? 0 : nu;
          const Index r0 = 16 * (u - base), r1 = std::min(in_av ? AV.rows() : qs, 16 * (ue - base));
          for (size_t t = 0; t < blocks_.size(); ++t) {
            const Block& blk = blocks_[t];
            const MatrixXd& Ct = coef[t];
            if (in_av) {
              kernels::sub_mul(AV.middleRows(r0, r1 - r0), blk.U.leftCols(blk.cols).middleRows(r0, r1 - r0), Ct, 1);
            } else if (r0 < blk.rows) {
              const Index re = std::min(r1, blk.rows);
              kernels::sub_mul(VS.middleRows(r0, re - r0), blk.Q.topLeftCorner(blk.rows, blk.cols).middleRows(r0, re - r0), Ct, 1);
            }
          }
          u = ue;
        }
      });
      vs_zero = false;
    };
    project_out();
    MatrixXd Mgg = c_gram();
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(Mgg);
    // A second pass when the first left some direction less than a tenth of its length (per block:
    // V_0'CV_0 = (1 + lambda) I, so an eigenvalue below 1 / 100 of that). One pass leaves a direction
    // that kept a fraction f of its length off orthogonal to the basis by about the pass's rounding
    // over f, and a second pass brings that back to the rounding (Giraud, Langou and Rozloznik 2005):
    // with f >= 1 / 10, the basis stays orthogonal to within ten times the rounding of a pass. The
    // usual 1 / sqrt(2) (Daniel, Gragg, Kaufman and Stewart) would pass twice over the basis for every
    // group of a wide x once it spans half the rows (a later group keeps about sqrt(1 - m / n) of its
    // length), about 40% of the Gram-Schmidt time of a path to saturation, for a bound 7 times tighter.
    if (nb > 0 && es.eigenvalues()(0) < 0.01 * (1.0 + ctl_.lambda)) {
      project_out();
      Mgg = c_gram();
      es.compute(Mgg);
    }
    const double tol = ctl_.pivot_tol * (1.0 + ctl_.lambda);
    Index k = 0;
    for (Index i = 0; i < r; ++i)
      if (es.eigenvalues()(i) > tol) ++k;
    const MatrixXd Ud = es.eigenvectors().rightCols(k) * es.eigenvalues().tail(k).cwiseSqrt().cwiseInverse().asDiagonal();
    MatrixXd Un = AV * Ud;
    const MatrixXd zn = Un.transpose() * yt_;
    MatrixXd Qn(qs + r, k);  // the new basis columns on the coordinates selected so far and on g
    Qn.topRows(qs).noalias() = VS * Ud;
    Qn.bottomRows(r) = Ud;

    // coefficients: the old basis columns and their z do not change, so w grows by Q_new z_new
    wsel_.conservativeResize(qs + r, Eigen::NoChange);
    wsel_.bottomRows(r).setZero();
    wsel_.noalias() += Qn * zn;
    zz_ += zn.squaredNorm();
    if (screening()) {
      // the residual's update, and a bound of how far it moved R (ResidualDrift::move())
      const MatrixXd dR = Un * zn;
      R_ -= dR;
      drift_.move(dR, R_);
    } else {
      R_.noalias() -= Un * zn;
    }
    ++step_;
    gain_.clear();  // of the step before
    if (screening()) drift_.track(step_, R_);
    qs_ += r;
    stale_ = true;
    record(g);
    if (!schur_.empty()) {  // one pass over x: rows h of C Q_new = A_h' U_new
      auto Pn = workspace(pn_, wh_.q, Un.cols());
      whitened_tmul(Un, Pn);
      b_.noalias() -= Pn * zn;
      downdate_schur(Pn, g, kernels::detail::on_pool(pool_, true));
    }
    if (k > 0) append(Un, Qn);
  }

 private:
  const Design& x_;
  // the fit's threads, which claim the chunks of every pass and product in turn: a step makes
  // dozens of short products, and a thread the system deschedules (on a machine shared with other
  // work) then holds back at most its chunk, not every product of the step (common/threads.hpp)
  mutable WorkerPool pool_;
  VectorXd sw_;          // sqrt(w / W)
  MatrixXd yt_, R_;      // centred, weighted response and the current residual, n x P
  double yy_total_ = 0.0;
  // The basis in blocks of up to 64 columns (the last one partly filled; no reallocation of the whole
  // basis as it grows): U = A Q, n x cols; Q on the coordinates selected up to the block's last column.
  struct Block {
    MatrixXd U, Q;
    Index cols = 0, rows = 0;
  };
  std::vector<Block> blocks_;
  MatrixXd wsel_;        // q_S x P: the coefficients Q z on the selected coordinates (selection order)
  double zz_ = 0.0;      // ||z||^2 = 2 F(S)
  Index qs_ = 0;
  MatrixXd b_;           // q x P gradients (rows of unselected groups are the ones used)
  mutable MatrixXd xt_;  // buffers of the passes (workspace()): x'(sw M), p x k, and A'U_new, q x k
  MatrixXd pn_;
  bool stale_ = true;    // OMP: b_ is recomputed from R_ at the next score
  std::vector<double> gain_;  // FR, Doubling: the candidates' gains of this step (set_candidates()), -1 for others
  // screening (OMP): the copy (empty when not screening), ||eta_h|| per group, ||S_h||_2, a bound of
  // ||A_h||_2; per group, the step of its last pass over the copy (-1: none), the bound of its b~
  // then and whether that pass was over the 16-bit level (fine_); the steps taken, and how far the
  // residual has moved since each (drift_, linear/screen.hpp)
  ScreeningCopy copy_;
  VectorXd eta_group_, norm_a_, beta0_;
  VectorXd calpha_group_, cgamma_group_;  // the coarse level's bounds over a group's columns (one response)
  std::vector<double> sigma_;
  std::vector<Index> pass_step_;
  std::vector<bool> fine_;  // the last pass was over the 16-bit level
  std::vector<bool> made_;  // the group's 16-bit columns are made
  Index step_ = 0;
  ResidualDrift drift_;

  bool screening() const { return copy_.cols() > 0; }

  // the copy of A, made group by group on the fit's threads
  void make_copy(const InterruptCheck& poll) {
    const Index n = x_.rows(), G = lay_.size();
    // the coarse level for one response; then the 16-bit level is made group by group when first
    // passed over (make_fine(): on wide data most groups never are)
    const bool lazy = R_.cols() == 1;
    copy_ = ScreeningCopy(n, wh_.q, true, lazy);
    made_.assign(static_cast<size_t>(G), !lazy);
    norm_a_ = VectorXd::Zero(G);
    const SharedCheck shared(poll);
    pool_.ranges(G, [&](Index b, Index e) {
      const InterruptCheck check = shared.check();
      shared.run([&] {
        for (Index g = b; g < e; ++g) {
          if (check) check();  // before each group: its columns touch fresh memory
          if (rank(g) == 0) continue;
          const MatrixXd Ag = whitened_columns(g);
          for (Index j = 0; j < rank(g); ++j) {
            if (lazy) copy_.set_coarse_column(offset(g) + j, Ag.col(j));
            else copy_.set_column(offset(g) + j, Ag.col(j));
          }
          norm_a_(g) = spectral_bound(Ag);
        }
      });
    });
    eta_group_ = VectorXd::Zero(G);
    calpha_group_ = VectorXd::Zero(G);
    cgamma_group_ = VectorXd::Zero(G);
    beta0_ = VectorXd::Zero(G);
    pass_step_.assign(static_cast<size_t>(G), -1);
    fine_.assign(static_cast<size_t>(G), false);
    // kept residuals: from 4 to 64, beyond 4 at most n q / 8 bytes (x holds 8 n p)
    drift_.start(R_, std::max<Index>(4, std::min<Index>(64, wh_.q / (64 * std::max<Index>(1, R_.cols())))));
    b_.resize(wh_.q, R_.cols());
    sigma_.assign(static_cast<size_t>(G), 0.0);
    for (Index g = 0; g < G; ++g) {
      if (rank(g) == 0) continue;
      if (made_[static_cast<size_t>(g)]) eta_group_(g) = copy_.eta().segment(offset(g), rank(g)).norm();
      if (copy_.has_coarse()) {  // norms of at most a few hundred terms: padded for their rounding
        calpha_group_(g) = copy_.coarse_alpha().segment(offset(g), rank(g)).norm() * (1 + 1e-12);
        cgamma_group_(g) = copy_.coarse_gamma().segment(offset(g), rank(g)).norm() * (1 + 1e-12);
      }
      // ||S_g||_2: the columns of S_g = U diag(d)^(1/2) are orthogonal, so its largest column norm
      const MatrixXd& S = wh_.S[static_cast<size_t>(g)];
      if (S.size()) sigma_[static_cast<size_t>(g)] = S.colwise().norm().maxCoeff();
    }
  }


  // the 16-bit columns of these groups not made yet, on the fit's threads, and their ||eta_h||
  void make_fine(const std::vector<Index>& groups) {
    std::vector<Index> todo;
    for (Index h : groups)
      if (!made_[static_cast<size_t>(h)] && rank(h) > 0) todo.push_back(h);
    if (todo.empty()) return;
    pool_.ranges(static_cast<Index>(todo.size()), [&](Index b, Index e) {
      for (Index i = b; i < e; ++i) {
        const Index h = todo[static_cast<size_t>(i)];
        const MatrixXd Ah = whitened_columns(h);
        for (Index j = 0; j < rank(h); ++j) copy_.set_fine_column(offset(h) + j, Ah.col(j));
      }
    });
    for (Index h : todo) {
      eta_group_(h) = copy_.eta().segment(offset(h), rank(h)).norm();
      made_[static_cast<size_t>(h)] = true;
    }
  }

  // an upper bound of ||A||_2 for an n x r matrix A: the square root of the largest absolute row sum of
  // A'A (which bounds its largest eigenvalue), padded by the rounding of A'A (each entry within
  // gamma_n ||a_i|| ||a_j||)
  static double spectral_bound(const MatrixXd& A) {
    const Index r = A.cols();
    if (r == 0) return 0.0;
    const MatrixXd full = kernels::tmul(A, A, 1);  // A'A (read in place, on this thread)
    const double u = std::ldexp(1.0, -53), nu = static_cast<double>(A.rows() + 2) * u;
    const double gamma = nu / (1 - nu), top = full.diagonal().maxCoeff();
    const double rows = full.cwiseAbs().rowwise().sum().maxCoeff();
    return std::sqrt((rows + gamma * static_cast<double>(r) * top) * (1 + 1e-12));
  }

  void append(const MatrixXd& Un, const MatrixXd& Qn) {
    const Index k = Un.cols(), rows = Qn.rows();
    if (blocks_.empty() || blocks_.back().cols + k > blocks_.back().U.cols()) {
      Block b;
      b.U.resize(Un.rows(), std::max<Index>(64, k));
      b.Q = MatrixXd::Zero(rows, b.U.cols());
      blocks_.push_back(std::move(b));
    }
    Block& b = blocks_.back();
    if (b.Q.rows() < rows) {  // new coordinates: zero rows for the block's earlier columns
      const Index old = b.Q.rows();
      b.Q.conservativeResize(rows, Eigen::NoChange);
      b.Q.bottomRows(rows - old).setZero();
    }
    b.U.middleCols(b.cols, k) = Un;
    b.Q.block(0, b.cols, rows, k) = Qn;
    b.cols += k;
    b.rows = rows;
  }

  // A_g = diag(sw) (X_g - 1 m') D^-1 T_g, n x r_g
  MatrixXd whitened_columns(Index g) const {
    const auto gs = static_cast<size_t>(g);
    MatrixXd Ag = fgseq::whitened_columns(x_, lay_.cols[gs], st_, wh_.T[gs]);
    Ag.array().colwise() *= sw_.array();
    return Ag;
  }

  // out (q x k, overwritten) = A' M for an n x k matrix M: x'(sw M) in one threaded pass, centred and
  // scaled column by column, then whitened group by group. The p x k product x'(sw M) goes to a buffer
  // kept for the fit (fresh memory of that size, one per step, is slow to touch).
  void whitened_tmul(const MatrixXd& M, Eigen::Ref<MatrixXd> out) const {
    const MatrixXd SM = sw_.asDiagonal() * M;
    auto xt = workspace(xt_, x_.cols(), M.cols());
    x_.tmul(SM, pool_, xt);
    const Eigen::RowVectorXd s = SM.colwise().sum();  // A'M = T' D^-1 (x'(sw M) - m 1'(sw M))
    pool_.ranges(lay_.size(), [&](Index g0, Index g1) {
      MatrixXd rows;
      for (Index g = g0; g < g1; ++g) {
        const Index r = rank(g);
        if (r == 0) continue;
        const auto& cols = lay_.cols[static_cast<size_t>(g)];
        rows.resize(static_cast<Index>(cols.size()), M.cols());
        for (size_t a = 0; a < cols.size(); ++a) {
          const Index j = cols[a];
          if (st_.constant[static_cast<size_t>(j)]) rows.row(static_cast<Index>(a)).setZero();
          else rows.row(static_cast<Index>(a)) = (xt.row(j) - st_.mean(j) * s) / st_.scale(j);
        }
        out.middleRows(offset(g), r).noalias() = wh_.T[static_cast<size_t>(g)].transpose() * rows;
      }
    });
  }

  // the first k columns of a buffer of `rows` rows, grown (never shrunk) to at least k columns
  static Eigen::Block<MatrixXd, Eigen::Dynamic, Eigen::Dynamic, true> workspace(MatrixXd& buf, Index rows, Index k) {
    if (buf.rows() != rows || buf.cols() < k) buf.resize(rows, std::max(k, buf.cols()));
    return buf.leftCols(k);
  }
};

}  // namespace fgseq

#endif
