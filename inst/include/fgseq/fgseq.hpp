// fgseq: cost-aware feature group sequencing for anytime linear prediction.
// Header-only C++17 core on Eigen, free of R. In the order data flows through it (README, "Code
// layout"): stats.hpp (one pass over the data), measurements.hpp (groups need measurements; marginal
// costs), whiten.hpp (group whitening inside the Gram matrix), design.hpp (dense or sparse x),
// family.hpp (the response families), newton.hpp (the damped Newton solver over an evaluator of the
// risk), engine.hpp (the greedy selection loop of CS-G-OMP, CS-G-FR and Doubling), model.hpp (the
// fit's Control, the selection criteria, the models' common base), gram.hpp (the linear model on the
// Gram matrix), sample.hpp (the linear model in sample space, for wide data; screen.hpp and kernels.hpp
// its reduced-precision screening and threaded products), glm.hpp (binomial, Poisson, multinomial:
// IRLS refits, and one chunk of rows' parts of them), fit.hpp (a whole fit from x and y, coefficients
// on the original scale), miser.hpp (the Greedy Miser: cost-penalized gradient-boosted trees),
// predict.hpp (anytime prediction of partially computed rows), grouplasso.hpp (the cost-weighted group
// lasso path of the Sparse baseline).
#ifndef FGSEQ_FGSEQ_HPP
#define FGSEQ_FGSEQ_HPP

#include "stats.hpp"
#include "measurements.hpp"
#include "whiten.hpp"
#include "design.hpp"
#include "family.hpp"
#include "newton.hpp"
#include "engine.hpp"
#include "model.hpp"
#include "gram.hpp"
#include "sample.hpp"
#include "glm.hpp"
#include "fit.hpp"
#include "miser.hpp"
#include "predict.hpp"
#include "grouplasso.hpp"

#endif
