// The models' common parts: the pseudo-inverse forms (common/pinv.hpp), the CS-G-OMP criteria and the
// map back to the original scale (greedy/model.hpp), against direct computations.

// pinv_quad() and pinv_solve() on a positive definite M (against Eigen's LDLT solve) and on a singular
// one (against the pseudo-inverse of Eigen's complete orthogonal decomposition); group_score() of each
// criterion against its definition.
static void test_model_pinv(Problem& pb) {
  const Index k = 5, P = 2;
  MatrixXd R(k + 3, k), b(k, P);
  for (Index i = 0; i < R.size(); ++i) R.data()[i] = pb.N(pb.rng);
  for (Index i = 0; i < b.size(); ++i) b.data()[i] = pb.N(pb.rng);
  const MatrixXd M = R.transpose() * R;
  const MatrixXd want_solve = M.ldlt().solve(b);
  const double want_quad = (b.transpose() * want_solve).trace();
  check(std::abs(pinv_quad(M, b, 1e-12) - want_quad) < 1e-9 * std::abs(want_quad), "pinv_quad, definite M",
        pinv_quad(M, b, 1e-12), want_quad);
  check((pinv_solve(M, b, 1e-12) - want_solve).norm() < 1e-9 * want_solve.norm(), "pinv_solve, definite M", 0, 0);
  MatrixXd L(k, k - 2);
  for (Index i = 0; i < L.size(); ++i) L.data()[i] = pb.N(pb.rng);
  const MatrixXd Ms = L * L.transpose();  // rank k - 2
  const MatrixXd pinv = Ms.completeOrthogonalDecomposition().pseudoInverse();
  const double want_s = (b.transpose() * pinv * b).trace();
  check(std::abs(pinv_quad(Ms, b, 1e-9) - want_s) < 1e-7 * std::abs(want_s), "pinv_quad, singular M", pinv_quad(Ms, b, 1e-9),
        want_s);
  check((pinv_solve(Ms, b, 1e-9) - pinv * b).norm() < 1e-7 * (pinv * b).norm(), "pinv_solve, singular M", 0, 0);
  // blocks of every size around the stack path's limit of 16: a definite M against b' M^-1 b (LDLT), a
  // singular one (its Cholesky factor may exist, 1 / tr(M^-1) is below the cut) against the
  // pseudo-inverse, one or several columns of b
  double worst_definite = 0.0, worst_singular = 0.0;
  for (const Index r : {Index(1), Index(2), Index(7), Index(10), Index(16), Index(17), Index(24)}) {
    for (const Index cols : {Index(1), Index(3)}) {
      MatrixXd Rr(r + 4, r), br(r, cols), Lr(r, std::max<Index>(r - 1, 1));
      for (Index i = 0; i < Rr.size(); ++i) Rr.data()[i] = pb.N(pb.rng);
      for (Index i = 0; i < br.size(); ++i) br.data()[i] = pb.N(pb.rng);
      for (Index i = 0; i < Lr.size(); ++i) Lr.data()[i] = pb.N(pb.rng);
      const MatrixXd Md = Rr.transpose() * Rr;
      const double want_d = (br.transpose() * Md.ldlt().solve(br)).trace();
      worst_definite = std::max(worst_definite, std::abs(pinv_quad(Md, br, 1e-12) - want_d) / want_d);
      if (r == 1) continue;
      const MatrixXd Mr = Lr * Lr.transpose();  // rank r - 1
      const double want_r = (br.transpose() * Mr.completeOrthogonalDecomposition().pseudoInverse() * br).trace();
      worst_singular = std::max(worst_singular, std::abs(pinv_quad(Mr, br, 1e-9) - want_r) / want_r);
    }
  }
  check(worst_definite < 1e-10, "pinv_quad, definite M of 1 to 24 rows (the stack path up to 16)", worst_definite, 0);
  check(worst_singular < 1e-6, "pinv_quad, singular M of 2 to 24 rows", worst_singular, 0);
  const MatrixXd S = R.topRows(k);  // an un-whitening map d x r
  auto whitened = [&] { return b; };
  auto standardized = [&] { return MatrixXd(S * b); };
  const MatrixXd sb = S * b;
  double linf = 0.0;
  for (Index i = 0; i < sb.rows(); ++i) linf = std::max(linf, sb.row(i).squaredNorm());
  check(std::abs(group_score(Criterion::Whitened, whitened, standardized) - b.squaredNorm()) < 1e-12, "whitened criterion", 0, 0);
  check(std::abs(group_score(Criterion::L2, whitened, standardized) - sb.squaredNorm()) < 1e-10, "l2 criterion", 0, 0);
  check(std::abs(group_score(Criterion::Linf, whitened, standardized) - linf) < 1e-10, "linf criterion", 0, 0);
}

// original_scale() on a path of random whitened coefficients on the groups of each step's prefix (the
// sequence 3, 1): x beta_k + a0_k equals Z w_k + a_k for every row and step, Z the whitened columns
// formed from x here (the map read backwards); step k stores the columns of its prefix's groups only;
// a coefficient outside the sequence is a logic error.
static void test_model_original_scale(Problem& pb) {
  const Index n = pb.n, p = pb.p;
  const GramStats st = gram_stats(pb.x, pb.Y, VectorXd());
  const GroupLayout lay = make_layout(pb.group_of, 5);
  const Whitened wh = whiten_groups(st, lay, 1e-9);
  Path path;
  path.sequence = {3, 1};
  for (int k = 0; k < 3; ++k) {
    MatrixXd w = MatrixXd::Zero(wh.q, 1);
    for (int s = 0; s < k; ++s) {
      const Index g = path.sequence[static_cast<size_t>(s)];
      for (Index i = 0; i < wh.rank[g]; ++i) w(wh.offset[g] + i) = pb.N(pb.rng);
    }
    path.w.push_back(w);
    path.a.push_back(VectorXd::Constant(1, pb.N(pb.rng)));
  }
  std::vector<SparseMatrixXd> beta;
  MatrixXd a0;
  original_scale(path, wh, st, lay, beta, a0);
  bool structure = true;
  for (int k = 0; k < 3; ++k) {
    Index want = 0;
    for (int s = 0; s < k; ++s) want += static_cast<Index>(lay.cols[static_cast<size_t>(path.sequence[static_cast<size_t>(s)])].size());
    structure = structure && beta[0].col(k).nonZeros() == want;
  }
  check(structure, "original_scale stores the columns of each step's prefix", 0, 0);
  Path outside = path;
  outside.w[1](wh.offset[0]) = 1.0;  // group 0 is not in the sequence
  bool threw = false;
  try {
    std::vector<SparseMatrixXd> b2;
    MatrixXd a2;
    original_scale(outside, wh, st, lay, b2, a2);
  } catch (const std::logic_error&) {
    threw = true;
  }
  check(threw, "original_scale refuses a coefficient outside the sequence", 0, 0);
  MatrixXd Z(n, wh.q);
  for (Index g = 0; g < 5; ++g) {
    const auto& cols = lay.cols[static_cast<size_t>(g)];
    MatrixXd xg(n, static_cast<Index>(cols.size()));
    for (size_t a = 0; a < cols.size(); ++a)
      xg.col(static_cast<Index>(a)) = (pb.x.col(cols[a]).array() - st.mean(cols[a])) / st.scale(cols[a]);
    if (wh.rank[g]) Z.middleCols(wh.offset[g], wh.rank[g]) = xg * wh.T[g];
  }
  double worst = 0.0;
  for (int k = 0; k < 3; ++k) {
    const VectorXd got = (pb.x * MatrixXd(beta[0]).col(k)).array() + a0(0, k);
    const VectorXd want = (Z * path.w[k]).array() + path.a[k](0);
    worst = std::max(worst, (got - want).cwiseAbs().maxCoeff());
  }
  check(beta.size() == 1 && beta[0].rows() == p && worst < 1e-8, "original_scale reproduces the whitened predictor", worst, 0);
}
