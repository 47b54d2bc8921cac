// The names of every option's values as R spells them, read both ways (the typed boundary between
// the core's enums and the strings of the R package). Each table lists the default value first: R
// checks its arguments against these tables (.option_names() in src/fgseq.cpp) and takes the first.
#ifndef FGSEQ_COMMON_OPTIONS_HPP
#define FGSEQ_COMMON_OPTIONS_HPP

#include <stdexcept>
#include <string>
#include <utility>

namespace fgseq {

// The names of an option's values as R spells them. Beside each option's enum E, a specialization
// Names<E> holds `what` (the option's name) and `table`, the pairs (value, name); from_name() and
// name_of() read it both ways, so the glue needs no change when a value is added.
template <class E>
struct Names;

template <class E>
E from_name(const std::string& name) {
  for (const auto& entry : Names<E>::table)
    if (name == entry.second) return entry.first;
  throw std::invalid_argument(std::string("unknown ") + Names<E>::what + " '" + name + "'");
}

template <class E>
const char* name_of(E value) {
  for (const auto& entry : Names<E>::table)
    if (value == entry.first) return entry.second;
  throw std::logic_error(std::string(Names<E>::what) + ": a value without a name");
}

// The end of a switch over E that found no case for `value` (no switch over an option has a default, so
// the core tests' build, -Werror=switch, names each switch a new value lacks): an error naming the value
// and the place, `where`.
template <class E>
[[noreturn]] void no_case(E value, const char* where) {
  throw std::logic_error(std::string(where) + ": the " + Names<E>::what + " '" + name_of(value) +
                         "' has no case here; add it");
}

}  // namespace fgseq

#endif
