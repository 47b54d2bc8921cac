// The response families (common/family.hpp) that the GLM models and the Greedy Miser share.

// For every family, with weights: the gradient of loss() in eta is diag(w) (mean(eta) - y) (central
// differences); for the Gaussian families and 0/1 responses loss() is half the deviance() (the Miser's
// loss); the mean of null_intercepts() is the mean response; columns_fit() takes the family's columns.
static void test_families() {
  std::mt19937 rng(11);
  std::normal_distribution<double> N(0.0, 1.0);
  std::uniform_real_distribution<double> U(0.5, 2.0);
  const Index n = 50;
  VectorXd w(n);
  for (Index i = 0; i < n; ++i) w(i) = U(rng);
  for (Family family : {Family::Gaussian, Family::MGaussian, Family::Binomial, Family::Poisson, Family::Multinomial}) {
    const FamilyOps fam{family};
    const Index P = family == Family::Multinomial ? 3 : family == Family::MGaussian ? 2 : 1;
    MatrixXd eta(n, P), y = MatrixXd::Zero(n, P);
    for (Index i = 0; i < n; ++i) {
      for (Index c = 0; c < P; ++c) eta(i, c) = 0.7 * N(rng);
      if (family == Family::Binomial) y(i, 0) = std::bernoulli_distribution(0.4)(rng);
      else if (family == Family::Poisson) y(i, 0) = std::poisson_distribution<int>(1.5)(rng);
      else if (family == Family::Multinomial) y(i, std::uniform_int_distribution<int>(0, 2)(rng)) = 1.0;
      else
        for (Index c = 0; c < P; ++c) y(i, c) = N(rng);
    }
    const MatrixXd grad = w.asDiagonal() * (fam.mean(eta) - y);
    double worst = 0.0;
    for (Index i = 0; i < n; i += 7)
      for (Index c = 0; c < P; ++c) {
        const double h = 1e-5;
        MatrixXd up = eta, down = eta;
        up(i, c) += h;
        down(i, c) -= h;
        const double fd = (fam.loss(up, y, w) - fam.loss(down, y, w)) / (2 * h);
        worst = std::max(worst, std::abs(fd - grad(i, c)) / (1 + std::abs(grad(i, c))));
      }
    check(worst < 1e-7, "family: the gradient of the loss is w (mean - y)", worst, 0);
    if (family != Family::Poisson) {
      const double loss = fam.loss(eta, y, w), half_deviance = 0.5 * fam.deviance(fam.mean(eta), y, w);
      check(std::abs(loss - half_deviance) < 1e-10 * (1 + loss), "family: the loss is half the deviance", loss,
            half_deviance);
    }
    const VectorXd ybar = y.transpose() * w / w.sum();
    const MatrixXd mu0 = fam.mean(fam.null_intercepts(ybar));
    check((mu0.row(0).transpose() - ybar).cwiseAbs().maxCoeff() < 1e-12, "family: the null model's mean",
          mu0(0, 0), ybar(0));
    check(fam.columns_fit(P) && !fam.columns_fit(P == 1 ? 2 : 0), "family: its response columns", P, P);
    // the loss couples the response columns exactly when one column's mean moves with another's eta
    double cross = 0.0;
    if (P > 1) {
      MatrixXd up = eta;
      up.col(1).array() += 1e-3;
      cross = (fam.mean(up).col(0) - fam.mean(eta).col(0)).cwiseAbs().maxCoeff();
    }
    check(fam.couples_columns() == (cross > 1e-9), "family: couples_columns() when the columns' means interact", cross,
          0);
  }
}

// The group lasso fits the families of one response column (gaussian, binomial, poisson); another family is
// an error naming it, never a gaussian fit.
static void test_group_lasso_family(const Problem& pb) {
  const VectorXd none, m = VectorXd::Ones(2);
  const MatrixXd z = pb.x.leftCols(4);
  bool threw = false;
  for (const Family family : {Family::Multinomial, Family::MGaussian}) {
    std::string message;
    try {
      GroupLasso gl(z, {2, 2}, pb.y, none, none, m, family);
    } catch (const std::invalid_argument& e) {
      message = e.what();
    }
    check(message.find(std::string("the family '") + name_of(family) + "' does not fit one response column") !=
              std::string::npos,
          "group lasso: a family of several response columns throws, naming it", !message.empty(), 1);
  }
  // the three it fits are taken
  for (const Family family : {Family::Gaussian, Family::Binomial, Family::Poisson}) {
    bool ok = true;
    try {
      VectorXd y = pb.y;
      if (family != Family::Gaussian) y = (pb.y.array() > pb.y.mean()).cast<double>();
      GroupLasso gl(z, {2, 2}, y, none, none, m, family);
    } catch (const std::invalid_argument&) {
      ok = false;
    }
    check(ok, "group lasso: gaussian, binomial and poisson are taken", ok, 1);
  }
  try {
    from_name<Family>("gaussain");
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  check(threw, "group lasso: a misspelt family name throws", threw, 1);
}
