// The step logic of workflow ingest_new_nova, written by hand.
//
// novacat-gen created this file once, from ingest_new_nova.yaml, and never
// touches it again. When a Task is added to the spec, the build fails until
// the method is declared here and written in steps.cpp; when one is removed,
// its `override` below stops compiling.
#pragma once

#include "ingest_new_nova/ingest_new_nova.hpp"
#include "novacat/workflows/environment.h"

namespace novacat::ingest_new_nova {

class Steps final : public IngestNewNovaSteps {
 public:
  explicit Steps(const workflows::Environment& env) : env_(env) {}

  LoadNovaOutput LoadNova(const IngestNewNovaState& state,
                          runtime::StepContext& context) override;
  RecordIngestStartedOutput RecordIngestStarted(
      const IngestNewNovaState& state, runtime::StepContext& context) override;

 private:
  workflows::Environment env_;
};

// Makes the steps over `env` (which must outlive them).
std::unique_ptr<IngestNewNovaSteps> MakeSteps(
    const workflows::Environment& env);

}  // namespace novacat::ingest_new_nova
