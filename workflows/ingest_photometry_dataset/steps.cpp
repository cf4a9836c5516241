// The step logic of workflow ingest_photometry_dataset, written by hand (see
// steps.hpp).
#include "ingest_photometry_dataset/steps.hpp"

#include "novacat/runtime/errors.h"

namespace novacat::ingest_photometry_dataset {

std::unique_ptr<IngestPhotometryDatasetSteps> MakeSteps(
    const workflows::Environment& env) {
  return std::make_unique<Steps>(env);
}

ResolveS3ObjectOutput Steps::ResolveS3Object(
    const IngestPhotometryDatasetState& /*state*/,
    runtime::StepContext& /*context*/) {
  throw runtime::TerminalError("ResolveS3Object is not implemented yet");
}

AcquireDatasetLeaseOutput Steps::AcquireDatasetLease(
    const IngestPhotometryDatasetState& /*state*/,
    runtime::StepContext& /*context*/) {
  throw runtime::TerminalError("AcquireDatasetLease is not implemented yet");
}

IngestPhotometryOutput Steps::IngestPhotometry(
    const IngestPhotometryDatasetState& /*state*/,
    runtime::StepContext& /*context*/) {
  throw runtime::TerminalError("IngestPhotometry is not implemented yet");
}

RecordIngestionFailureOutput Steps::RecordIngestionFailure(
    const IngestPhotometryDatasetState& /*state*/,
    runtime::StepContext& /*context*/) {
  throw runtime::TerminalError("RecordIngestionFailure is not implemented yet");
}

}  // namespace novacat::ingest_photometry_dataset
