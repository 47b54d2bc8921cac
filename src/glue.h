// What every unit of the glue shares (src/fgseq.cpp, src/glm.cpp, src/miser.cpp): Rcpp and Eigen, the
// option values read through the core's name tables, and the measurements of a fit from R's list. Light
// on purpose: it includes no model of the core, so that each unit pays only for the rooms it calls; the
// helpers' definitions are in src/glue-impl.h.
#ifndef FGSEQ_GLUE_H
#define FGSEQ_GLUE_H

#define USE_FC_LEN_T
#include <RcppEigen.h>

#include <fgseq/common/measurements.hpp>
#include <fgseq/common/options.hpp>

#include <string>
#include <utility>
#include <vector>

namespace glue {

// The value of the option `name` of a list from R, by the names beside its enum in the core.
template <class E>
E option(const Rcpp::List& opt, const char* name) {
  return fgseq::from_name<E>(Rcpp::as<std::string>(opt[name]));
}

// The names of the values of an option, as the core's table beside its enum lists them.
template <class E>
std::vector<std::string> names_of() {
  std::vector<std::string> out;
  for (const auto& entry : fgseq::Names<E>::table) out.push_back(entry.second);
  return out;
}

// The measurements of a fit, from the list R builds (measurement_index() in R/measurements.R):
// `needs`, one integer vector of 0-based measurement indices per group, and `measurement_cost`, one
// cost per measurement.
fgseq::Measurements measurements_from(const Rcpp::List& m);

}  // namespace glue

#endif
