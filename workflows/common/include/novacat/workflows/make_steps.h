// A workflow's step logic made with what it declares it needs: the seeds'
// MakeSteps(const Environment&), or MakeSteps() for step logic that needs
// nothing from the world (what `novacat-gen new` scaffolds). So a workflow
// is built, registered and packaged from its spec alone, whichever it takes.
//
//   auto steps = NOVACAT_MAKE_STEPS(novacat::initialize_nova, env);
//
// `none` is an empty pack: it keeps the call without an Environment
// dependent, so the branch not taken is never checked.
#pragma once

#include "novacat/workflows/environment.h"

#define NOVACAT_MAKE_STEPS(ns, env)                         \
  ([](const auto& environment, auto... none) {              \
    if constexpr (requires { ns::MakeSteps(environment); }) \
      return ns::MakeSteps(environment);                    \
    else                                                    \
      return ns::MakeSteps(none...);                        \
  }(env))
