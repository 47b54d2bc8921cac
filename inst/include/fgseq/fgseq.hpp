// fgseq: cost-aware feature group sequencing for anytime linear prediction.
// Header-only C++17 core on Eigen, free of R. See stats.hpp (one pass over the data),
// measurements.hpp (groups need measurements; marginal costs), whiten.hpp (group whitening inside
// the Gram matrix), engine.hpp (CS-G-OMP, CS-G-FR, Doubling),
// design.hpp (dense or sparse x), sample.hpp (the sample-space engine for wide data),
// newton.hpp (the damped Newton solver over an evaluator of the risk), glm.hpp (binomial, Poisson,
// multinomial: IRLS refits, and one chunk of rows' parts of them), fit.hpp (a whole fit from x and y),
// miser.hpp (the Greedy Miser: cost-penalized gradient-boosted trees), predict.hpp (anytime
// prediction of partially computed rows).
#ifndef FGSEQ_FGSEQ_HPP
#define FGSEQ_FGSEQ_HPP

#include "stats.hpp"
#include "measurements.hpp"
#include "whiten.hpp"
#include "design.hpp"
#include "newton.hpp"
#include "engine.hpp"
#include "model.hpp"
#include "gram.hpp"
#include "sample.hpp"
#include "glm.hpp"
#include "fit.hpp"
#include "miser.hpp"
#include "predict.hpp"

#endif
