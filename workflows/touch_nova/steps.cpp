// The step logic of workflow touch_nova, written by hand (see steps.hpp).
#include "touch_nova/steps.hpp"

#include "novacat/runtime/errors.h"

namespace novacat::touch_nova {

std::unique_ptr<TouchNovaSteps> MakeSteps() {
  return std::make_unique<Steps>();
}

MarkNovaTouchedOutput Steps::MarkNovaTouched(
    const TouchNovaState& /*state*/, runtime::StepContext& /*context*/) {
  throw runtime::TerminalError("MarkNovaTouched is not implemented yet");
}

}  // namespace novacat::touch_nova
