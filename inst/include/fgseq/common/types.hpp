// The Eigen types every header of the core speaks in.
#ifndef FGSEQ_COMMON_TYPES_HPP
#define FGSEQ_COMMON_TYPES_HPP

#include <Eigen/Dense>
#include <Eigen/SparseCore>

namespace fgseq {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using SparseMatrixXd = Eigen::SparseMatrix<double>;  // compressed columns

}  // namespace fgseq

#endif
