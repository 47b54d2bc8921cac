// The Eigen types every header of the core speaks in.
#ifndef FGSEQ_COMMON_TYPES_HPP
#define FGSEQ_COMMON_TYPES_HPP

#include <Eigen/Dense>

namespace fgseq {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

}  // namespace fgseq

#endif
