// The core tests' shared harness: counted checks and the small random problem most checks use (correlated
// columns, a rank-deficient group, a column duplicated in another group).
#ifndef FGSEQ_TEST_HARNESS_HPP
#define FGSEQ_TEST_HARNESS_HPP

#include <fgseq/fgseq.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace fgseq;

static int failures = 0, passes = 0;

// Counts a check; a failed one is printed with what it got and what it wanted.
static void check(bool ok, const char* what, double got, double want) {
  if (ok) {
    ++passes;
  } else {
    ++failures;
    std::printf("FAIL %s: got %.12g, want %.12g\n", what, got, want);
  }
}

// n = 400 rows, p = 12 columns in 5 groups of costs 1, 2, 5, 1.5 and 3, drawn from the seed of the test
// that uses it (test_core.cpp gives each test its own problem and seed).
struct Problem {
  Index n = 400, p = 12;
  std::mt19937 rng;
  std::normal_distribution<double> N{0.0, 1.0};
  MatrixXd x;
  VectorXd y;
  MatrixXd Y;  // y as an n x 1 matrix
  std::vector<int> group_of{0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 3, 4};
  std::vector<double> cost{1.0, 2.0, 5.0, 1.5, 3.0};

  explicit Problem(unsigned seed) : rng(seed), x(n, p), y(n) {
    for (Index i = 0; i < n; ++i) {
      const double common = N(rng);
      for (Index j = 0; j < p; ++j) x(i, j) = 0.6 * common + N(rng) + 10.0 * j;
    }
    x.col(5) = x.col(3) + x.col(4);  // rank-deficient group {3, 4, 5}
    x.col(11) = x.col(0);            // a column duplicated in another group
    for (Index i = 0; i < n; ++i) y(i) = x(i, 0) - 0.5 * x(i, 3) + 0.25 * x(i, 7) + N(rng);
    Y = y;
  }

  // random weights in [0.5, 2] and offsets for the GLM checks
  void weights_offsets(VectorXd& wt, MatrixXd& off) {
    std::uniform_real_distribution<double> U(0.5, 2.0);
    wt.resize(n);
    off.resize(n, 1);
    for (Index i = 0; i < n; ++i) {
      wt(i) = U(rng);
      off(i, 0) = 0.2 * N(rng);
    }
  }
};

#endif
