// Tests of the C++ core without R: builds against Eigen alone.
//   make test-core
// One check file per header (the shared problem and check() are in harness.hpp), compiled as one
// program so that Eigen's templates are compiled once. Each test draws its data from its own seed
// (its own Problem, and std::srand() for Eigen's Random()), so the tests run in any order and alone:
//   test_core                  every test, in the order of the table below
//   test_core --reverse        every test, last first
//   test_core NAME ...         the named tests only (test_core --list names them)
#include "harness.hpp"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "test_cross.cpp"
#include "test_design.cpp"
#include "test_engine.cpp"
#include "test_family.cpp"
#include "test_fit.cpp"
#include "test_glm.cpp"
#include "test_gram.cpp"
#include "test_grouplasso.cpp"
#include "test_kernels.cpp"
#include "test_measurements.cpp"
#include "test_miser.cpp"
#include "test_mixture.cpp"
#include "test_model.cpp"
#include "test_newton.cpp"
#include "test_node.cpp"
#include "test_options.cpp"
#include "test_predict.cpp"
#include "test_risk.cpp"
#include "test_sample.cpp"
#include "test_screen.cpp"
#include "test_stats.cpp"
#include "test_threads.cpp"
#include "test_whiten.cpp"

struct TestCase {
  const char* name;
  unsigned seed;
  std::function<void(Problem&)> run;
};

static const std::vector<TestCase>& test_cases() {
  static const std::vector<TestCase> cases = {
      {"gram_path", 101, [](Problem& pb) { test_gram_path(pb); }},
      {"sample_engine", 102, [](Problem& pb) { test_sample_engine(pb); }},
      {"glm_chunk_sums", 103, [](Problem& pb) { test_glm_chunk_sums(pb); }},
      {"glm_refit", 104, [](Problem& pb) { test_glm_refit(pb); }},
      {"screening_copy", 105, [](Problem& pb) { test_screening_copy(pb); }},
      {"dense_kernels", 106, [](Problem&) { test_dense_kernels(); }},
      {"screened_omp", 107, [](Problem& pb) { test_screened_omp(pb); }},
      {"shared_measurements", 108, [](Problem& pb) { test_shared_measurements(pb); }},
      {"weighted_cross", 109, [](Problem&) { test_weighted_cross(); }},
      {"quadratic_gains", 110, [](Problem& pb) { test_quadratic_gains(pb); }},
      {"moment_sizes", 111, [](Problem& pb) { test_moment_sizes(pb); }},
      {"tampered_forest", 112, [](Problem& pb) { test_tampered_forest(pb); }},
      {"miser_time_up", 113, [](Problem& pb) { test_miser_time_up(pb); }},
      {"miser_time_up_in_iteration", 114, [](Problem& pb) { test_miser_time_up_in_iteration(pb); }},
      {"prefix_predict", 115, [](Problem&) { test_prefix_predict(); }},
      {"families", 116, [](Problem&) { test_families(); }},
      {"group_lasso_family", 117, [](Problem& pb) { test_group_lasso_family(pb); }},
      {"option_names", 118, [](Problem&) { test_option_names(); }},
      {"worker_pool", 119, [](Problem&) { test_worker_pool(); }},
      {"glm_time_up", 120, [](Problem& pb) { test_glm_time_up(pb); }},
      {"null_model_rows", 121, [](Problem&) { test_null_model_rows(); }},
      {"wide_group", 122, [](Problem& pb) { test_wide_group(pb); }},
      {"symmetric_solve", 123, [](Problem&) { test_symmetric_solve(); }},
      {"group_lasso_path", 124, [](Problem&) { test_group_lasso_path(); }},
      {"time_before_stats", 125, [](Problem& pb) { test_time_before_stats(pb); }},
      {"design_products", 126, [](Problem& pb) { test_design_products(pb); }},
      {"engine_selection", 127, [](Problem& pb) { test_engine_selection(pb); }},
      {"fit_least_squares", 128, [](Problem& pb) { test_fit_least_squares(pb); }},
      {"model_pinv", 129, [](Problem& pb) { test_model_pinv(pb); }},
      {"model_original_scale", 130, [](Problem& pb) { test_model_original_scale(pb); }},
      {"newton_quadratic", 131, [](Problem& pb) { test_newton_quadratic(pb); }},
      {"newton_logistic", 132, [](Problem& pb) { test_newton_logistic(pb); }},
      {"newton_separable", 9133, [](Problem& pb) { test_newton_separable(pb); }},
      {"whitening_maps", 133, [](Problem& pb) { test_whitening_maps(pb); }},
      {"miser_paid_record", 134, [](Problem& pb) { test_miser_paid_record(pb); }},
      {"miser_newton", 149, [](Problem& pb) { test_miser_newton(pb); }},
      {"multinomial_direction", 135, [](Problem& pb) { test_multinomial_direction(pb); }},
      {"pair_cross", 136, [](Problem&) { test_pair_cross(); }},
      {"pass_checks", 137, [](Problem& pb) { test_pass_checks(pb); }},
      {"column_sweep", 141, [](Problem& pb) { test_column_sweep(pb); }},
      {"block_pass_checks", 142, [](Problem& pb) { test_block_pass_checks(pb); }},
      {"sample_fr_gains", 143, [](Problem& pb) { test_sample_fr_gains(pb); }},
      {"sample_saturation", 144, [](Problem& pb) { test_sample_saturation(pb); }},
      {"whitened_columns", 138, [](Problem& pb) { test_whitened_columns(pb); }},
      {"contrast_hessian", 139, [](Problem& pb) { test_contrast_hessian(pb); }},
      {"lazy_screening", 140, [](Problem& pb) { test_lazy_screening(pb); }},
      {"screening_coarse", 145, [](Problem& pb) { test_screening_coarse(pb); }},
      {"decision_risk", 146, [](Problem&) { test_decision_risk(); }},
      {"policy_node", 147, [](Problem&) { test_policy_node(); }},
      {"mixture_node", 148, [](Problem&) { test_mixture_node(); }},
  };
  return cases;
}

int main(int argc, char** argv) {
  const std::vector<TestCase>& cases = test_cases();
  std::vector<const TestCase*> run;
  bool reverse = false;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--reverse")) {
      reverse = true;
    } else if (!std::strcmp(argv[a], "--list")) {
      for (const TestCase& t : cases) std::printf("%s\n", t.name);
      return 0;
    } else {
      const TestCase* found = nullptr;
      for (const TestCase& t : cases)
        if (argv[a] == std::string(t.name)) found = &t;
      if (!found) {
        std::printf("unknown test '%s' (test_core --list names them)\n", argv[a]);
        return 2;
      }
      run.push_back(found);
    }
  }
  if (run.empty())
    for (const TestCase& t : cases) run.push_back(&t);
  if (reverse) std::reverse(run.begin(), run.end());
  for (const TestCase* t : run) {
    std::srand(t->seed);
    Problem pb(t->seed);
    t->run(pb);
  }
  std::printf("core: %d passed, %d failed\n", passes, failures);
  return failures == 0 ? 0 : 1;
}
