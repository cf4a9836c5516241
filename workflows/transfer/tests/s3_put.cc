// transfer_s3_put: S3ObjectStore by hand and for the moto test
// (s3_moto_test.py):
//
//   transfer_s3_put <bucket> <key> <file> <content type> <directory>
//
// Puts <file> under <key>, then Gets it back into <directory>, and prints
// one JSON line: {"put": StoredObject, "get": Fetched or null}. Endpoint,
// region and credentials come from the environment (AWS_ENDPOINT_URL_S3,
// AWS_REGION, AWS_ACCESS_KEY_ID, ...). Exit 0 when done; else the error's
// class and message on stderr and exit 1 (RetryableError) or 2 (anything
// else).
#include <cstdio>
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "novacat/runtime/errors.h"
#include "novacat/transfer/object_store.h"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr,
                 "usage: %s <bucket> <key> <file> <content type> "
                 "<directory>\n",
                 argv[0]);
    return 2;
  }
  try {
    novacat::transfer::S3ObjectStore store({}, argv[1]);
    novacat::transfer::StoredObject put = store.Put(argv[2], argv[3], argv[4]);
    nlohmann::json out = {{"put",
                           {{"bucket", put.bucket},
                            {"key", put.key},
                            {"byte_length", put.byte_length},
                            {"sha256", put.sha256},
                            {"etag", put.etag}}},
                          {"get", nullptr}};
    if (auto got = store.Get(argv[2], argv[5]))
      out["get"] = {{"file", got->file.string()},
                    {"byte_length", got->byte_length},
                    {"sha256", got->sha256},
                    {"etag", got->etag},
                    {"content_type", got->content_type}};
    std::printf("%s\n", out.dump().c_str());
    return 0;
  } catch (const novacat::runtime::StepError& e) {
    std::fprintf(stderr, "%s: %s\n", e.classification(), e.what());
    return e.error_class() == novacat::runtime::ErrorClass::kRetryable ? 1 : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
