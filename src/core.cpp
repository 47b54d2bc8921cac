// The one definition of the core's shared passes and linear algebra (FGSEQ_DEFINE_COMMON, see
// common/compiled.hpp): the statistics pass, whitening, the pseudo-inverse, the Newton solver, the
// blocked products (and kernels::weighted_cross_rows() over a matrix), the design's passes, the greedy
// path and the original scale. The other units of the package only declare them. No R here: the core
// alone.
#define FGSEQ_DEFINE_COMMON

#include <fgseq/common/design.hpp>
#include <fgseq/common/kernels.hpp>
#include <fgseq/common/newton.hpp>
#include <fgseq/common/pinv.hpp>
#include <fgseq/common/stats.hpp>
#include <fgseq/common/whiten.hpp>
#include <fgseq/glm/cross.hpp>
#include <fgseq/greedy/engine.hpp>
#include <fgseq/greedy/model.hpp>
