// The step logic of workflow hostile_text, written by hand (see steps.hpp).
#include "hostile_text/steps.hpp"

#include "novacat/runtime/errors.h"

namespace novacat::hostile_text {

std::unique_ptr<HostileTextSteps> MakeSteps() {
  return std::make_unique<Steps>();
}

JudgeOutput Steps::Judge(const HostileTextState& /*state*/,
                         runtime::StepContext& /*context*/) {
  throw runtime::TerminalError("Judge is not implemented yet");
}

}  // namespace novacat::hostile_text
