// The step logic of workflow ingest_photometry_dataset, written by hand.
//
// novacat-gen created this file once, from ingest_photometry_dataset.yaml, and
// never touches it again. When a Task is added to the spec, the build fails
// until the method is declared here and written in steps.cpp; when one is
// removed, its `override` below stops compiling.
#pragma once

#include "ingest_photometry_dataset/ingest_photometry_dataset.hpp"
#include "novacat/workflows/environment.h"

namespace novacat::ingest_photometry_dataset {

class Steps final : public IngestPhotometryDatasetSteps {
 public:
  explicit Steps(const workflows::Environment& env) : env_(env) {}
  ResolveS3ObjectOutput ResolveS3Object(
      const IngestPhotometryDatasetState& state,
      runtime::StepContext& context) override;
  AcquireDatasetLeaseOutput AcquireDatasetLease(
      const IngestPhotometryDatasetState& state,
      runtime::StepContext& context) override;
  IngestPhotometryOutput IngestPhotometry(
      const IngestPhotometryDatasetState& state,
      runtime::StepContext& context) override;
  RecordIngestionFailureOutput RecordIngestionFailure(
      const IngestPhotometryDatasetState& state,
      runtime::StepContext& context) override;

 private:
  const workflows::Environment& env_;
};

// Makes the steps. Give it what the steps need (a store, clients) as
// parameters when they need something.
std::unique_ptr<IngestPhotometryDatasetSteps> MakeSteps(
    const workflows::Environment& env);

}  // namespace novacat::ingest_photometry_dataset
