// fgseq: cost-aware feature group sequencing for anytime linear prediction.
// Header-only C++17 core on Eigen, free of R (or, with FGSEQ_COMPILED, its larger shared functions
// compiled once: common/compiled.hpp), in rooms by role (ARCHITECTURE.md):
//   common/  what every learner shares: option names (options.hpp), the clock (deadline.hpp),
//            threads (threads.hpp), one pass over the data (stats.hpp), measurements and their costs,
//            whitening, dense or sparse x (design.hpp), the BLAS a fit may be given (blas.hpp), threaded
//            dense products (kernels.hpp), the response families (family.hpp), the damped Newton
//            solver (newton.hpp) and the pseudo-inverse forms of the FR gains (pinv.hpp)
//   greedy/  the greedy selection loop of CS-G-OMP, CS-G-FR and Doubling (engine.hpp), the fit's
//            Control and the models' common base (model.hpp) and the anytime prediction of partially
//            computed rows (predict.hpp)
//   linear/  the least-squares models: on the whitened Gram matrix (gram.hpp), in sample space for
//            wide data (sample.hpp, with its 16-bit and 8-bit screening copy in screen.hpp and the
//            copy's kernels in screen_kernels.hpp)
//   glm/     binomial, Poisson and multinomial models: the weighted cross-products (cross.hpp), the
//            risk over rows (evaluator.hpp), one chunk's sums (sums.hpp), the multinomial's Newton
//            directions (multinomial.hpp), the models over rows in memory (model.hpp) and refitted
//            elsewhere (refit.hpp)
//   sequence/ a whole fit of a sequence (fit.hpp): the models of linear/ and glm/ on greedy/'s loop; what
//            every fit shares in path.hpp; the GLM fits in fit_glm.hpp, which a translation unit of
//            their own may compile alone
//   miser/   the Greedy Miser: forest and prediction, binning, cost penalty and trees, the two split
//            searches, boosting (boost.hpp)
//   sparse/  the cost-weighted group lasso path of the Sparse baseline
//   adaptive/ per-row acquisition, for R's fgseq_policy(): the decision risk (risk.hpp), a node under
//            the single Gaussian working model (node.hpp) and under a mixture of Gaussians (mixture.hpp)
#ifndef FGSEQ_FGSEQ_HPP
#define FGSEQ_FGSEQ_HPP

#include "common/compiled.hpp"
#include "common/options.hpp"
#include "common/deadline.hpp"
#include "common/threads.hpp"
#include "common/blas.hpp"
#include "common/kernels.hpp"
#include "common/stats.hpp"
#include "common/measurements.hpp"
#include "common/whiten.hpp"
#include "common/design.hpp"
#include "common/family.hpp"
#include "common/newton.hpp"
#include "common/pinv.hpp"
#include "greedy/engine.hpp"
#include "greedy/model.hpp"
#include "greedy/predict.hpp"
#include "linear/gram.hpp"
#include "linear/sample.hpp"
#include "glm/cross.hpp"
#include "glm/evaluator.hpp"
#include "glm/sums.hpp"
#include "glm/multinomial.hpp"
#include "glm/model.hpp"
#include "glm/refit.hpp"
#include "sequence/path.hpp"
#include "sequence/fit.hpp"
#include "sequence/fit_glm.hpp"
#include "miser/boost.hpp"
#include "sparse/grouplasso.hpp"
#include "adaptive/risk.hpp"
#include "adaptive/node.hpp"
#include "adaptive/mixture.hpp"

#endif
