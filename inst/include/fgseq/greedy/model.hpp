// What every model of the greedy engine shares: the fit's Control, the selection criteria of CS-G-OMP
// with their range bounds for screening, and GroupModel, the common base of GramModel (linear/gram.hpp),
// SampleModel (linear/sample.hpp) and the GLM models (glm/), which holds the groups, their whitening and
// the groups selected so far. The pseudo-inverse quadratic forms of the FR gains are in common/pinv.hpp.
//
// A new CS-G-OMP criterion is one value of Criterion with its name (Names<Criterion>) and one case in
// criterion_score().
#ifndef FGSEQ_GREEDY_MODEL_HPP
#define FGSEQ_GREEDY_MODEL_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../common/compiled.hpp"
#include "engine.hpp"
#include "../common/newton.hpp"
#include "../common/options.hpp"
#include "../common/pinv.hpp"
#include "../common/threads.hpp"
#include "../common/stats.hpp"
#include "../common/whiten.hpp"

namespace fgseq {

// The CS-G-OMP criteria (each with its name, as R spells it, and its case in criterion_score())
enum class Criterion { Whitened, L2, Linf };
template <>
struct Names<Criterion> {
  static constexpr const char* what = "criterion";
  static constexpr std::pair<Criterion, const char*> table[] = {
      {Criterion::Whitened, "whitened"}, {Criterion::L2, "l2"}, {Criterion::Linf, "linf"}};
};

enum class FrGain { Exact, Quadratic };  // GLM forward-regression gains: refit, or one Newton step
template <>
struct Names<FrGain> {
  static constexpr const char* what = "fr_gain";
  static constexpr std::pair<FrGain, const char*> table[] = {{FrGain::Exact, "exact"}, {FrGain::Quadratic, "quadratic"}};
};

enum class Engine { Gram, Sample };  // linear families: p x p Gram matrix, or sample space (wide data)
template <>
struct Names<Engine> {
  static constexpr const char* what = "engine";
  static constexpr std::pair<Engine, const char*> table[] = {{Engine::Gram, "gram"}, {Engine::Sample, "sample"}};
};

// Everything a fit reads: the selection loop's part (PathControl, greedy/engine.hpp), the Newton solver's
// (NewtonControl, common/newton.hpp), and the models'.
struct Control : PathControl, NewtonControl {
  Criterion criterion = Criterion::Whitened;  // OMP only
  FrGain fr_gain = FrGain::Exact;             // FR and Doubling with GLM families
  double lambda = 1e-6;
  double rank_tol = 1e-9;   // whitening: eigenvalues <= rank_tol * largest are dropped
  double pivot_tol = 1e-9;  // Schur complement eigenvalues <= pivot_tol * (1 + lambda) add nothing
  Engine engine = Engine::Gram;  // gaussian and mgaussian; the GLM families never form a p x p matrix
  int threads = 1;               // OpenMP threads for the passes over x
  bool screen = true;            // sample-space engine, dense x: screen groups with a 16-bit copy
  // dense x (either linear engine): the first pass over x also reads what the checks of x need
  // (FitResult::scan) and stops the fit after it when a value is NA, NaN or Inf or a column's largest
  // magnitude is outside [plain_min, plain_max] (a column of zeros excepted), so that the caller refuses
  // x or fits it rescaled
  bool check_values = false;
  double plain_min = 0.0, plain_max = std::numeric_limits<double>::infinity();
};

namespace detail {
// The CS-G-OMP criterion as a squared norm of a group's gradient (Hu et al. 2016, section 2: group
// whitening, and the "No-Whiten" and "Single" variants), and the Lipschitz constant of that norm in
// the whitened gradient (for the range of a score computed from an approximate gradient).
//   whitened():     b_h, the gradient in the group's whitened coordinates (r_h x P);
//   standardized(): the gradient in its standardized columns (d_h x P), S_h b_h;
//   unwhiten_norm:  ||S_h||_2.
struct CriterionValue {
  double score;
  double lipschitz;
};
template <class WhitenedGradient, class StandardizedGradient>
CriterionValue criterion_score(Criterion criterion, const WhitenedGradient& whitened,
                               const StandardizedGradient& standardized, double unwhiten_norm) {
  switch (criterion) {
    case Criterion::L2:  // ||S_h b_h||^2 (No-Whiten)
      return {standardized().squaredNorm(), unwhiten_norm};
    case Criterion::Linf:  // the largest squared row of S_h b_h (Single)
      return {standardized().rowwise().squaredNorm().maxCoeff(), unwhiten_norm};
    case Criterion::Whitened:  // ||b_h||^2
      return {whitened().squaredNorm(), 1.0};
  }
  no_case(criterion, "criterion_score");
}
}  // namespace detail

// The CS-G-OMP score of an unselected group from its gradient, given both ways (see
// detail::criterion_score): each is computed only if the criterion asks for it.
template <class WhitenedGradient, class StandardizedGradient>
double group_score(Criterion criterion, const WhitenedGradient& whitened, const StandardizedGradient& standardized) {
  return detail::criterion_score(criterion, whitened, standardized, 0.0).score;
}

// lo <= score <= hi for the score of the exact gradient b_h, from an approximate one b~_h with
// ||b~_h - b_h||_F <= error (given both ways as for group_score(); unwhiten_norm = ||S_h||_2): the
// square root of every score is a norm, which moves by at most error times its Lipschitz constant;
// the range is widened by the rounding of its computation.
template <class WhitenedGradient, class StandardizedGradient>
std::pair<double, double> group_score_range(Criterion criterion, const WhitenedGradient& whitened,
                                            const StandardizedGradient& standardized, double error,
                                            double unwhiten_norm) {
  const detail::CriterionValue v = detail::criterion_score(criterion, whitened, standardized, unwhiten_norm);
  const double norm = std::sqrt(v.score), e = error * v.lipschitz;
  const double lo = std::max(0.0, norm - e) * (1 - 1e-12), hi = (norm + e) * (1 + 1e-12);
  return {lo * lo, hi * hi};
}

// The common base of the models: the groups (layout, whitening, column statistics), the Control, and
// the groups selected so far (flags and selection order). A model adds its constructor, raw_score(),
// add_group() and what it reports of its fit.
class GroupModel : public SelectionModel {
 public:
  Index n_groups() const override { return lay_.size(); }
  bool selectable(Index h) const override { return rank(h) > 0; }
  virtual double null_risk() const = 0;       // R(empty)
  virtual bool converged() const { return true; }  // every refit so far converged (GLM families)
  virtual bool diverged() const { return false; }  // a refit so far converged toward an optimum at infinity
  const Whitened& whitening() const { return wh_; }
  const GramStats& stats() const { return st_; }
  const GroupLayout& layout() const { return lay_; }

 protected:
  GroupModel(const Whitened& wh, const GramStats& st, const GroupLayout& lay, const Control& ctl)
      : wh_(wh), st_(st), lay_(lay), ctl_(ctl), selected_(static_cast<size_t>(lay.size()), false) {
    if (static_cast<Index>(wh_.rank.size()) != lay_.size() || static_cast<Index>(wh_.T.size()) != lay_.size())
      throw std::invalid_argument("model: one whitening map per group is needed");
  }

  const Whitened& wh_;
  const GramStats& st_;
  const GroupLayout& lay_;
  Control ctl_;
  std::vector<bool> selected_;  // per group
  std::vector<Index> order_;    // the selected groups, in order

  Index rank(Index h) const { return wh_.rank[static_cast<size_t>(h)]; }
  Index offset(Index h) const { return wh_.offset[static_cast<size_t>(h)]; }
  // what the fit's method scores (method_traits(), greedy/engine.hpp): the models ask this, never the
  // method, and switch over it in raw_score()
  Scores scoring() const { return scores_of(ctl_.method); }

  // Marks g selected (after the selected groups so far).
  void record(Index g) {
    selected_[static_cast<size_t>(g)] = true;
    order_.push_back(g);
  }

  // The whitened coefficients (q x P) from the rows of the selected groups' coefficients in selection
  // order; the other groups' rows are 0.
  MatrixXd scatter(const Eigen::Ref<const MatrixXd>& rows) const {
    MatrixXd w = MatrixXd::Zero(wh_.q, rows.cols());
    Index row = 0;
    for (Index g : order_) {
      w.middleRows(offset(g), rank(g)) = rows.middleRows(row, rank(g));
      row += rank(g);
    }
    return w;
  }

  // The CS-G-OMP score of h from its whitened gradient b_h (r_h x P).
  double whitened_gradient_score(Index h, const Eigen::Ref<const MatrixXd>& bh) const {
    const MatrixXd& S = wh_.S[static_cast<size_t>(h)];
    return group_score(ctl_.criterion, [&] { return bh; }, [&] { return MatrixXd(S * bh); });
  }

  // The CS-G-OMP score of h from its gradient in the standardized columns bs (d_h x P).
  double standardized_gradient_score(Index h, const MatrixXd& bs) const {
    const MatrixXd& T = wh_.T[static_cast<size_t>(h)];
    return group_score(ctl_.criterion, [&] { return MatrixXd(T.transpose() * bs); }, [&] { return bs; });
  }

  // The linear models' FR gains: the Schur complement blocks M_hh of the unselected groups in the
  // whitened Gram matrix C (linear/gram.hpp), started at C_hh and downdated by each step's new directions.
  std::vector<MatrixXd> schur_;

  // tr(b_h' pinv(M_hh) b_h) / 2, eigenvalues of M_hh at or below pivot_tol * (1 + lambda) ignored.
  double schur_gain(Index h, const Eigen::Ref<const MatrixXd>& bh) const {
    return 0.5 * pinv_quad(schur_[static_cast<size_t>(h)], bh, ctl_.pivot_tol * (1.0 + ctl_.lambda));
  }

  // M_hh -= Pn_h Pn_h' for every unselected group h (Pn: the rows h of C times the new basis columns,
  // q x k), after g was selected; g's block is dropped.
  void downdate_schur(const Eigen::Ref<const MatrixXd>& Pn, Index g, int threads) {
    downdate_schur(Pn, g, [threads](Index n, const auto& body) { parallel_ranges(n, threads, body); });
  }

  // the same with the groups' ranges run by over(n, body) (on threads)
  template <class Over>
  void downdate_schur(const Eigen::Ref<const MatrixXd>& Pn, Index g, const Over& over) {
    over(lay_.size(), [&](Index h0, Index h1) {
      for (Index h = h0; h < h1; ++h) {
        if (selected_[static_cast<size_t>(h)] || rank(h) == 0) continue;
        const auto Ph = Pn.middleRows(offset(h), rank(h));
        schur_[static_cast<size_t>(h)].noalias() -= Ph * Ph.transpose();
      }
    });
    schur_[static_cast<size_t>(g)].resize(0, 0);
  }
};

// Coefficients on the original scale of x: beta_g = T_g w_g / sd, one sparse p x (K+1) matrix per
// response column whose column k holds the non-constant columns of the groups selected by step k (the
// first k of the sequence; every other coefficient is 0 by construction, and a model whose whitened
// coefficients say otherwise is a logic error), and intercepts a0 = a - mean(x)' beta (P x (K+1)). A
// wide fit's coefficients are then the size of what it selected, not p x (K+1).
FGSEQ_API void original_scale(const Path& path, const Whitened& wh, const GramStats& st, const GroupLayout& lay,
                              std::vector<SparseMatrixXd>& beta, MatrixXd& a0);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API void original_scale(const Path& path, const Whitened& wh, const GramStats& st, const GroupLayout& lay,
                              std::vector<SparseMatrixXd>& beta, MatrixXd& a0) {
  const Index K1 = static_cast<Index>(path.w.size());
  const Index P = K1 > 0 ? path.w[0].cols() : 0;
  std::vector<std::vector<Eigen::Triplet<double>>> entries(static_cast<size_t>(P));
  std::vector<bool> selected(static_cast<size_t>(lay.size()), false);
  for (Index k = 0; k < K1; ++k) {
    if (k > 0) selected[static_cast<size_t>(path.sequence.at(static_cast<size_t>(k - 1)))] = true;
    for (Index g = 0; g < lay.size(); ++g) {
      const Index r = wh.rank[static_cast<size_t>(g)];
      if (r == 0) continue;
      const auto wg = path.w[k].middleRows(wh.offset[static_cast<size_t>(g)], r);
      if (!selected[static_cast<size_t>(g)]) {  // (a NaN there, from a failed solve, is left out as a 0)
        if (((wg.array() != 0.0) && wg.array().isFinite()).any())
          throw std::logic_error("original_scale: a group outside the sequence has coefficients");
        continue;
      }
      const MatrixXd bg = wh.T[static_cast<size_t>(g)] * wg;
      const auto& cols = lay.cols[static_cast<size_t>(g)];
      for (size_t a = 0; a < cols.size(); ++a) {
        const Index j = cols[a];
        if (st.constant[static_cast<size_t>(j)]) continue;
        for (Index c = 0; c < P; ++c)
          entries[static_cast<size_t>(c)].emplace_back(j, k, bg(static_cast<Index>(a), c) / st.scale(j));
      }
    }
  }
  if (P > 0 && entries[0].size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw std::length_error("original_scale: more than 2^31 - 1 coefficients along the path (a sparse matrix's limit); "
                            "fit fewer steps (max_steps)");
  beta.assign(static_cast<size_t>(P), SparseMatrixXd(lay.p, K1));
  a0.resize(P, K1);
  for (Index c = 0; c < P; ++c) {
    SparseMatrixXd& b = beta[static_cast<size_t>(c)];
    b.setFromTriplets(entries[static_cast<size_t>(c)].begin(), entries[static_cast<size_t>(c)].end());
    b.makeCompressed();
    for (Index k = 0; k < K1; ++k) a0(c, k) = path.a[k](c) - b.col(k).dot(st.mean);
  }
}
#endif

}  // namespace fgseq

#endif
