// The whitened columns of a GLM fit over rows in memory, Z1 = [1, z_g1, z_g2, ...] (n x (1 + their
// ranks)): the intercept's column and the whitened columns z_g = (x_g - mean) / sd T_g of some groups in
// a given order, never held whole. Held whole they would take n times the sum of the groups' ranks doubles,
// up to the size of x beside x itself; here every pass reads the groups' columns of x a block of rows at
// a time, centred in cache as whitened_columns() centres them (accurate for any column means):
// - the products with few columns (the linear predictors, the gradients, the Hessian-vector products of
//   the multinomial family) take the whitening maps on the small side,
//     Z1 C = 1 c_0' + (x_S - 1 mean') (T~ C_S),   Z1' M = [1' M; T~' (x_S - 1 mean')' M],
//   with T~ the maps with their rows divided by the scales (block diagonal over the groups; the rows of
//   constant columns 0), so they cost what the products with a held Z1 cost;
// - the weighted cross-products (Hessians, the borders of the FR gains) read blocks of rows of Z1 itself
//   (read(), the row source of kernels::weighted_cross_rows() in glm/cross.hpp), formed as
//   whitened_columns() forms them: n times the sum over the groups of d_g r_g multiply-adds a pass,
//   beside about n m1^2 of the products.
#ifndef FGSEQ_GLM_COLUMNS_HPP
#define FGSEQ_GLM_COLUMNS_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "../common/design.hpp"
#include "../common/kernels.hpp"
#include "../common/stats.hpp"
#include "../common/threads.hpp"
#include "cross.hpp"

namespace fgseq {

class WhitenedColumns {
 public:
  // x and st (the column means, scales and constant flags) are held by reference.
  WhitenedColumns(const Design& x, const GramStats& st) : x_(&x), st_(&st) {}

  // Appends the whitened columns of the group of x's columns `cols`, whitened by T (|cols| x r).
  void append(const std::vector<Index>& cols, const MatrixXd& T) {
    if (static_cast<Index>(cols.size()) != T.rows())
      throw std::invalid_argument("WhitenedColumns: a whitening map needs one row per column of its group");
    xat_.push_back(static_cast<Index>(xcols_.size()));
    zat_.push_back(m1_);
    xcols_.insert(xcols_.end(), cols.begin(), cols.end());
    m1_ += T.cols();
    dmax_ = std::max(dmax_, T.rows());
    Tn_.push_back(negated_scaled_map(cols, *st_, T));
  }

  // the rows of a block cost more than a copy: the BLAS paths of the cross-products form them on threads
  static constexpr bool formed = true;

  Index rows() const { return x_->rows(); }
  Index cols() const { return m1_; }

  // Y -= Z1 C for C (cols() x k), Y (n x k), on `threads` threads over blocks of rows.
  void sub_mul(Eigen::Ref<MatrixXd> Y, const Eigen::Ref<const MatrixXd>& C, int threads = 1) const {
    Y.rowwise() -= C.row(0);
    const Index p = static_cast<Index>(xcols_.size()), k = C.cols();
    if (p == 0) return;
    MatrixXd B(p, k);  // T~ C_S: the coefficients of the centred columns of x
    for (size_t g = 0; g < Tn_.size(); ++g)
      B.middleRows(xat_[g], Tn_[g].rows()).noalias() = -(Tn_[g] * C.middleRows(zat_[g], Tn_[g].cols()));
    over_blocks(p, k, threads, [&](Index r0, Index rows, const MatrixXd& xc) {
      kernels::sub_mul(Y.middleRows(r0, rows), xc.topRows(rows), B, 1);
    });
  }

  // Z1[, c0:c1)' M for M (n x k), on `threads` threads over blocks of rows; c0 and c1 at the first
  // columns of groups (or 0, cols()).
  MatrixXd tmul(const Eigen::Ref<const MatrixXd>& M, int threads = 1, Index c0 = 0, Index c1 = -1) const {
    if (c1 < 0) c1 = m1_;
    const size_t g0 = group_at(std::max<Index>(c0, 1)), g1 = group_at(c1);
    MatrixXd out(c1 - c0, M.cols());
    if (c0 == 0) out.row(0) = M.colwise().sum();
    if (g0 == g1) return out;
    const Index x0 = xat_[g0], x1 = g1 < Tn_.size() ? xat_[g1] : static_cast<Index>(xcols_.size());
    const Index p = x1 - x0, k = M.cols();
    std::vector<MatrixXd> part(static_cast<size_t>(std::max(threads, 1)));
    over_blocks_part(x0, p, k, threads, [&](int t, Index r0, Index rows, const MatrixXd& xc) {
      MatrixXd& acc = part[static_cast<size_t>(t)];
      if (acc.size() == 0) acc = MatrixXd::Zero(p, k);
      acc += kernels::tmul(xc.topRows(rows), M.middleRows(r0, rows), 1);
    });
    MatrixXd xm = MatrixXd::Zero(p, k);  // (x_S - 1 mean')' M
    for (const MatrixXd& a : part)
      if (a.size()) xm += a;
    for (size_t g = g0; g < g1; ++g)
      out.middleRows(zat_[g] - c0, Tn_[g].cols()).noalias() = -(Tn_[g].transpose() * xm.middleRows(xat_[g] - x0, Tn_[g].rows()));
    return out;
  }

  // Rows [r0, r0 + rows) of Z1's columns [0, cmax) into dst's top-left corner (the row source of
  // kernels::weighted_cross_rows()): each group's z = 0 - x_c (-T~), as whitened_columns() forms it.
  void read(Index r0, Index rows, Index cmax, Eigen::Ref<MatrixXd> dst) const {
    if (cmax > 0) dst.col(0).head(rows).setOnes();
    MatrixXd xc(rows, dmax_), z;
    for (size_t g = 0; g < Tn_.size() && zat_[g] < cmax; ++g) {
      const Index d = Tn_[g].rows(), r = Tn_[g].cols();
      centred_rows(xat_[g], d, r0, rows, xc.data(), rows);
      if (zat_[g] + r <= cmax) {
        auto out = dst.block(0, zat_[g], rows, r);
        out.setZero();
        kernels::sub_mul(out, xc.leftCols(d), Tn_[g], 1);
      } else {  // a group cut by cmax
        z = MatrixXd::Zero(rows, r);
        kernels::sub_mul(z, xc.leftCols(d), Tn_[g], 1);
        dst.block(0, zat_[g], rows, cmax - zat_[g]) = z.leftCols(cmax - zat_[g]);
      }
    }
  }

 private:
  const Design* x_;
  const GramStats* st_;
  std::vector<Index> xcols_;  // the groups' columns of x, in order
  std::vector<Index> xat_;    // per group: its first position in xcols_
  std::vector<Index> zat_;    // per group: its first column in Z1
  std::vector<MatrixXd> Tn_;  // per group: -T~, T's rows divided by the scales (constant columns: 0), negated
  Index m1_ = 1;
  Index dmax_ = 0;            // the largest group's columns

  // the group whose first column in Z1 is c (groups() for c = cols())
  size_t group_at(Index c) const {
    if (c >= m1_) return Tn_.size();
    const size_t g = static_cast<size_t>(std::lower_bound(zat_.begin(), zat_.end(), c) - zat_.begin());
    if (g == Tn_.size() || zat_[g] != c) throw std::invalid_argument("WhitenedColumns: a range must start at a group");
    return g;
  }

  // rows [r0, r0 + rows) of the centred columns xcols_[x0 .. x0 + p) of x, column a at dst + a * ld
  void centred_rows(Index x0, Index p, Index r0, Index rows, double* dst, Index ld) const {
    x_->gather_rows(xcols_.data() + x0, p, r0, rows, dst, ld);
    for (Index a = 0; a < p; ++a)
      Eigen::Map<VectorXd>(dst + a * ld, rows).array() -= st_->mean(xcols_[static_cast<size_t>(x0 + a)]);
  }

  // rows per block: about 1 MB of centred columns, a multiple of 16 rows
  static Index block_rows(Index p) { return std::max<Index>(64, std::min<Index>(4096, (Index(1) << 17) / std::max<Index>(p, 1)) / 16 * 16); }

  // body(t, r0, rows, xc) over the blocks of rows, xc the block's centred columns xcols_[x0 .. x0 + p)
  // (rows x p), the blocks split into one range per thread (t: the thread's index)
  template <class Body>
  void over_blocks_part(Index x0, Index p, Index k, int threads, const Body& body) const {
    const Index n = rows(), rb = block_rows(p), nblk = (n + rb - 1) / rb;
    threads = static_cast<int>(std::min<Index>(kernels::detail::threads_for(static_cast<double>(n) * p * k, threads), nblk));
    threads = std::max(threads, 1);
    parallel_ranges(threads, threads, [&](Index t0, Index t1) {
      MatrixXd xc(rb, p);
      for (Index t = t0; t < t1; ++t)
        for (Index blk = nblk * t / threads; blk < nblk * (t + 1) / threads; ++blk) {
          const Index r0 = blk * rb, nr = std::min(rb, n - r0);
          centred_rows(x0, p, r0, nr, xc.data(), rb);
          body(static_cast<int>(t), r0, nr, xc);
        }
    });
  }
  template <class Body>
  void over_blocks(Index p, Index k, int threads, const Body& body) const {
    over_blocks_part(0, p, k, threads, [&](int, Index r0, Index rows, const MatrixXd& xc) { body(r0, rows, xc); });
  }
};

// The passes of the GLM over its columns Z1, held (a matrix: the chunks' rows, the tests) or formed a block
// of rows at a time (WhitenedColumns): Y -= Z1 C, Z1[, c0:c1)' M, and the row source of the weighted
// cross-products. columns_view() gives what a function that keeps Z1 holds: a reference to the matrix,
// or a copy of the WhitenedColumns (its whitening maps, not its rows).
inline void columns_sub_mul(Eigen::Ref<MatrixXd> Y, const Eigen::Ref<const MatrixXd>& Z1,
                            const Eigen::Ref<const MatrixXd>& C, int threads) {
  kernels::sub_mul(Y, Z1, C, threads);
}
inline void columns_sub_mul(Eigen::Ref<MatrixXd> Y, const WhitenedColumns& Z1, const Eigen::Ref<const MatrixXd>& C,
                            int threads) {
  Z1.sub_mul(Y, C, threads);
}
inline MatrixXd columns_tmul(const Eigen::Ref<const MatrixXd>& Z1, const Eigen::Ref<const MatrixXd>& M, int threads,
                             Index c0 = 0, Index c1 = -1) {
  if (c1 < 0) c1 = Z1.cols();
  return kernels::tmul(Z1.middleCols(c0, c1 - c0), M, threads);
}
inline MatrixXd columns_tmul(const WhitenedColumns& Z1, const Eigen::Ref<const MatrixXd>& M, int threads,
                             Index c0 = 0, Index c1 = -1) {
  return Z1.tmul(M, threads, c0, c1);
}
inline kernels::DenseRows row_source(const Eigen::Ref<const MatrixXd>& Z1) { return kernels::DenseRows{Z1}; }
inline const WhitenedColumns& row_source(const WhitenedColumns& Z1) { return Z1; }

template <class Cols>
using ColumnsView = typename std::conditional<std::is_same<typename std::decay<Cols>::type, WhitenedColumns>::value,
                                              WhitenedColumns, Eigen::Ref<const MatrixXd>>::type;
template <class Cols>
ColumnsView<Cols> columns_view(const Cols& Z1) {
  return ColumnsView<Cols>(Z1);
}

}  // namespace fgseq

#endif
