// The step logic of workflow annotate_nova, written by hand (see steps.hpp).
#include "annotate_nova/steps.hpp"

#include <cstdio>
#include <functional>

#include "novacat/runtime/errors.h"

namespace novacat::annotate_nova {

namespace {

// A stand-in store for the example: the all-zero UUID is the unknown nova.
constexpr std::string_view kUnknownNova =
    "00000000-0000-0000-0000-000000000000";

std::string Trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

}  // namespace

std::unique_ptr<AnnotateNovaSteps> MakeSteps() {
  return std::make_unique<Steps>();
}

LoadNovaOutput Steps::LoadNova(const AnnotateNovaState& state,
                               runtime::StepContext& /*context*/) {
  LoadNovaOutput out;
  out.nova_exists = state.nova_id.value_or("") != kUnknownNova;
  return out;
}

StoreAnnotationOutput Steps::StoreAnnotation(
    const AnnotateNovaState& state, runtime::StepContext& /*context*/) {
  const std::string note = Trim(state.note.value_or(""));
  if (note.empty()) {
    throw runtime::TerminalError("invalid_note: the note is empty");
  }
  // A deterministic id, so a retried invocation stores the same annotation.
  size_t h = std::hash<std::string>{}(state.nova_id.value_or("") + "|" + note);
  char id[37];
  std::snprintf(id, sizeof id, "%08x-0000-4000-8000-%012llx",
                static_cast<unsigned>(h & 0xffffffffu),
                static_cast<unsigned long long>(h >> 16) & 0xffffffffffffULL);
  StoreAnnotationOutput out;
  out.annotation_id = std::string(id);
  out.note_length = static_cast<int64_t>(note.size());
  return out;
}

}  // namespace novacat::annotate_nova
