// Tests of the C++ core without R: builds against Eigen alone.
//   make test-core
// One check file per header (the shared problem and check() are in harness.hpp), compiled as one
// program so that Eigen's templates are compiled once. They run in this order, which is the order in
// which they draw from the shared problem's random stream.
#include "harness.hpp"

#include "test_family.cpp"
#include "test_glm.cpp"
#include "test_grouplasso.cpp"
#include "test_gram.cpp"
#include "test_kernels.cpp"
#include "test_measurements.cpp"
#include "test_miser.cpp"
#include "test_predict.cpp"
#include "test_sample.cpp"
#include "test_screen.cpp"
#include "test_stats.cpp"

int main() {
  Problem pb;
  test_gram_path(pb);
  test_sample_engine(pb);
  test_glm_chunk_sums(pb);
  test_glm_refit(pb);
  test_screening_copy(pb);
  test_dense_kernels();
  test_screened_omp(pb);
  test_shared_measurements(pb);
  test_weighted_cross();
  test_quadratic_gains(pb);
  test_moment_sizes(pb);
  test_tampered_forest(pb);
  test_miser_time_up(pb);
  test_miser_time_up_in_iteration(pb);
  test_prefix_predict();
  test_families();
  test_group_lasso_family(pb);
  test_option_names();
  test_worker_pool();
  test_glm_time_up(pb);
  test_null_model_rows();
  test_wide_group(pb);
  test_symmetric_solve();
  test_group_lasso_path();
  test_time_before_stats(pb);
  test_multinomial_direction(pb);
  std::printf("core: %d passed, %d failed\n", passes, failures);
  return failures == 0 ? 0 : 1;
}
