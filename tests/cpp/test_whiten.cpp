// Group whitening (common/whiten.hpp), against the whitened columns formed from x itself.

// On the shared problem: the whitened columns Z_g = Xs_g T_g, with Xs the columns of x centred and
// divided by their population sd (computed here by plain loops), have Z_g' Z_g / n = I (rank r_g; the
// rank-deficient group {3, 4, 5} keeps 2); S_g maps back, Z_g S_g' = Xs_g; the blocks of C are
// Z_g' Z_h / n and rho~ = Z' yc / n, yc the centred y.
static void test_whitening_maps(Problem& pb) {
  const Index n = pb.n, p = pb.p;
  const GramStats st = gram_stats(pb.x, pb.Y, VectorXd());
  const GroupLayout lay = make_layout(pb.group_of, 5);
  const Whitened wh = whiten(st, lay, 0.0, 1e-9);
  MatrixXd xs(n, p);
  for (Index j = 0; j < p; ++j) {
    double m = 0.0, v = 0.0;
    for (Index i = 0; i < n; ++i) m += pb.x(i, j) / n;
    for (Index i = 0; i < n; ++i) v += (pb.x(i, j) - m) * (pb.x(i, j) - m) / n;
    for (Index i = 0; i < n; ++i) xs(i, j) = (pb.x(i, j) - m) / std::sqrt(v);
  }
  const VectorXd yc = pb.y.array() - pb.y.mean();
  std::vector<MatrixXd> Z(5);
  double worst_identity = 0.0, worst_back = 0.0;
  for (Index g = 0; g < 5; ++g) {
    const auto& cols = lay.cols[static_cast<size_t>(g)];
    MatrixXd xg(n, static_cast<Index>(cols.size()));
    for (size_t a = 0; a < cols.size(); ++a) xg.col(static_cast<Index>(a)) = xs.col(cols[a]);
    Z[g] = xg * wh.T[g];
    const Index r = wh.rank[g];
    worst_identity = std::max(worst_identity, (Z[g].transpose() * Z[g] / n - MatrixXd::Identity(r, r)).norm());
    worst_back = std::max(worst_back, (Z[g] * wh.S[g].transpose() - xg).norm() / std::sqrt(double(n)));
  }
  check(wh.rank[1] == 2 && wh.rank[0] == 3 && wh.q == 3 + 2 + 2 + 3 + 1, "whitened ranks", static_cast<double>(wh.q), 11);
  check(worst_identity < 1e-9, "Z_g' Z_g / n = I from x", worst_identity, 0);
  check(worst_back < 1e-8, "Z_g S_g' reproduces the standardized columns", worst_back, 0);
  double worst_c = 0.0, worst_rho = 0.0;
  for (Index g = 0; g < 5; ++g) {
    worst_rho = std::max(worst_rho, (Z[g].transpose() * yc / n - wh.rho.middleRows(wh.offset[g], wh.rank[g])).norm());
    for (Index h = 0; h < 5; ++h)
      worst_c = std::max(worst_c, (Z[g].transpose() * Z[h] / n -
                                   wh.C.block(wh.offset[g], wh.offset[h], wh.rank[g], wh.rank[h])).norm());
  }
  check(worst_c < 1e-9, "whitened Gram blocks Z_g' Z_h / n from x", worst_c, 0);
  check(worst_rho < 1e-9, "whitened rho Z' yc / n from x", worst_rho, 0);
}
