#include "emit/spec_scaffold.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <kainjow/mustache.hpp>
#include <stdexcept>

#include "emit/templates.h"
#include "model/spec.h"

namespace novacat {

namespace mustache = kainjow::mustache;

std::string WorkflowNameProblem(const std::string& workflow) {
  if (workflow.empty()) return "the workflow name is empty";
  if (workflow.size() > 64)
    return "the workflow name is longer than 64 characters";
  if (!(workflow[0] >= 'a' && workflow[0] <= 'z'))
    return "a workflow name starts with a lower-case letter";
  for (char c : workflow)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return "a workflow name is snake_case: lower-case letters, digits and "
             "'_'";
  return "";
}

std::string ScaffoldSpec(const std::string& workflow, bool event_catalog) {
  // annotate_nova -> "Annotate nova" (the title); the key's prefix is its
  // PascalCase.
  std::string title = workflow;
  std::replace(title.begin(), title.end(), '_', ' ');
  title[0] =
      static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
  const std::string pascal = PascalCase(workflow);
  mustache::data data;
  data.set("workflow", workflow);
  data.set("pascal", pascal);
  data.set("title", title);
  data.set("event_catalog", event_catalog);
  mustache::mustache tmpl{std::string(TemplateText("new_spec.yaml.mustache"))};
  tmpl.set_custom_escape([](const std::string& s) { return s; });
  std::string out = tmpl.render(data);
  if (!tmpl.is_valid())
    throw std::logic_error("template new_spec.yaml.mustache: " +
                           tmpl.error_message());
  return out;
}

std::string WriteNewSpec(const std::string& specs_dir,
                         const std::string& workflow) {
  if (std::string problem = WorkflowNameProblem(workflow); !problem.empty())
    return fmt::format("'{}': {}", workflow, problem);
  namespace fs = std::filesystem;
  const fs::path path = fs::path(specs_dir) / (workflow + ".yaml");
  std::error_code ec;
  if (!fs::is_directory(specs_dir, ec))
    return fmt::format("{} is not a folder (give --specs-dir DIR)", specs_dir);
  const bool catalog =
      fs::is_regular_file(fs::path(specs_dir) / "shared" / "events.yaml", ec);
  const std::string text = ScaffoldSpec(workflow, catalog);
  // O_EXCL: an existing spec is never opened for writing.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0)
    return errno == EEXIST
               ? fmt::format("{} exists; nothing written", path.string())
               : fmt::format("cannot create {}: {}", path.string(),
                             std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      int error = errno;
      ::close(fd);
      ::unlink(path.c_str());  // no half-written spec
      return fmt::format("cannot write {}: {}", path.string(),
                         std::strerror(error));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    ::unlink(path.c_str());
    return fmt::format("cannot write {}", path.string());
  }
  return "";
}

}  // namespace novacat
