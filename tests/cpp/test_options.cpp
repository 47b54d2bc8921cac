// The names of every option's values (common/options.hpp, the tables beside each enum).

// The names of each option's values (Names<E> beside each enum): every name reads back to its value
// and the value to its name, names are distinct, and an unknown name is an error.
template <class E>
void check_names(const char* what) {
  std::vector<std::string> seen;
  for (const auto& entry : Names<E>::table) {
    const E value = from_name<E>(entry.second);
    check(value == entry.first && std::string(name_of(value)) == entry.second, what, 0, 0);
    check(std::find(seen.begin(), seen.end(), entry.second) == seen.end(), what, 0, 0);
    seen.push_back(entry.second);
  }
  bool threw = false;
  try {
    from_name<E>("no such value");
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  check(threw, what, threw, 1);
}

static void test_option_names() {
  check_names<Method>("names of Method");
  check_names<Criterion>("names of Criterion");
  check_names<FrGain>("names of FrGain");
  check_names<Engine>("names of Engine");
  check_names<Family>("names of Family");
  check_names<PaidUpdate>("names of PaidUpdate");
  check_names<SplitSearch>("names of SplitSearch");
  check_names<Scores>("names of Scores");
  check_names<Candidates>("names of Candidates");
  // every named method has its traits (method_traits() throws for one without), and the paper's
  // three are what it says: CS-G-OMP scores gradients, CS-G-FR and Doubling gains; Doubling alone
  // limits the candidates by cost
  for (const auto& entry : Names<Method>::table) {
    bool ok = true;
    try {
      method_traits(entry.first);
    } catch (const std::logic_error&) {
      ok = false;
    }
    check(ok, "every named method has its traits", ok, 1);
  }
  check(scores_of(Method::OMP) == Scores::Gradient && scores_of(Method::FR) == Scores::Gain &&
            scores_of(Method::Doubling) == Scores::Gain,
        "what each method scores", 0, 0);
  check(method_traits(Method::OMP).candidates == Candidates::Every &&
            method_traits(Method::FR).candidates == Candidates::Every &&
            method_traits(Method::Doubling).candidates == Candidates::WithinCost,
        "how each method picks its candidates", 0, 0);
  check(from_name<Criterion>("l2") == Criterion::L2 && std::string(name_of(Criterion::Linf)) == "linf",
        "criterion names as R spells them", 0, 0);
}
