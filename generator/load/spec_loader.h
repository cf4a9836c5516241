// SpecLoader: YAML text → WorkflowSpec, with a location on every element.
//
// The loader owns the shape of the format: unknown keys (with a suggestion),
// wrong value types, duplicate keys, missing required keys and YAML syntax
// errors are reported here. Whether the spec makes sense (references,
// reachability, retry rules...) is the checker's business. Loading never
// stops at the first problem; it returns a best-effort model and leaves the
// errors in the sink.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "model/spec.h"
#include "support/diagnostics.h"
#include "support/file_set.h"

namespace novacat {

class SpecLoader {
 public:
  SpecLoader(DiagnosticSink& sink, FileReader read_file);
  SpecLoader(const SpecLoader&) = delete;
  SpecLoader& operator=(const SpecLoader&) = delete;

  // Loads the spec at `path` and the governance file it references. Returns
  // null only when the file cannot be read or is not YAML at all.
  std::unique_ptr<WorkflowSpec> LoadFile(const std::string& path);

 private:
  std::shared_ptr<const Governance> LoadGovernance(
      const std::string& path, const SourceLocation& referenced_at);

  std::shared_ptr<const EventCatalog> LoadEventCatalog(
      const std::string& path, const SourceLocation& referenced_at);

  DiagnosticSink& sink_;
  FileReader read_file_;
  // Governance files are shared by specs; load each once.
  std::map<std::string, std::shared_ptr<const Governance>> governance_cache_;
  // So are event catalogs.
  std::map<std::string, std::shared_ptr<const EventCatalog>> catalog_cache_;
};

// Parses "10s", "15m", "2h", "1d" into seconds; nullopt when malformed.
std::optional<int64_t> ParseDuration(const std::string& text);

}  // namespace novacat
