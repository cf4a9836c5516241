#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "emit/templates.h"

namespace novacat {

namespace mustache = kainjow::mustache;

namespace {

// The parsed template `name` with `escape`, parsed on first use (or by
// ParseTemplate) and then shared by every thread (the emitters run on
// several). Sharing is safe because rendering only reads a template:
// kainjow writes to one on an error (a template compiled into the binary
// that parsed has none when rendered: no partials, no lambdas) and in
// set_custom_escape, which is called here, once, before the template is
// shared. Each template is parsed under its own once_flag, so that parsing
// one holds up neither the others nor their renders.
struct Entry {
  std::once_flag once;
  std::unique_ptr<mustache::mustache> tmpl;
  // The longest text a render made so far: the next one's room, so that
  // it does not grow by doubling (copying, and touching twice the memory).
  std::atomic<size_t> longest{0};
};

Entry& Parsed(std::string_view name, TemplateEscape escape) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, TemplateEscape>, Entry> entries;
  Entry* entry;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    entry = &entries[std::make_pair(std::string(name), escape)];
  }
  std::call_once(entry->once, [&] {
    auto tmpl =
        std::make_unique<mustache::mustache>(std::string(TemplateText(name)));
    if (!tmpl->is_valid()) {
      throw std::logic_error("template " + std::string(name) + ": " +
                             tmpl->error_message());
    }
    if (escape == TemplateEscape::kNone)
      tmpl->set_custom_escape([](const std::string& s) { return s; });
    else
      tmpl->set_custom_escape(mustache::html_escape<std::string>);
    entry->tmpl = std::move(tmpl);
  });
  return *entry;
}

}  // namespace

void ParseTemplate(std::string_view name, TemplateEscape escape) {
  Parsed(name, escape);
}

std::string RenderTemplate(std::string_view name, const mustache::data& data,
                           TemplateEscape escape) {
  Entry& entry = Parsed(name, escape);
  mustache::mustache& tmpl = *entry.tmpl;
  std::string out;
  out.reserve(entry.longest.load(std::memory_order_relaxed));
  tmpl.render(data, [&out](const std::string& text) { out += text; });
  if (!tmpl.is_valid()) {
    throw std::logic_error("template " + std::string(name) + ": " +
                           tmpl.error_message());
  }
  size_t longest = entry.longest.load(std::memory_order_relaxed);
  while (out.size() > longest &&
         !entry.longest.compare_exchange_weak(longest, out.size(),
                                              std::memory_order_relaxed)) {
  }
  return out;
}

}  // namespace novacat
