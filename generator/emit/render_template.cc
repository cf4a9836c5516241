#include <map>
#include <memory>
#include <stdexcept>

#include "emit/templates.h"

namespace novacat {

namespace mustache = kainjow::mustache;

std::string RenderTemplate(std::string_view name, const mustache::data& data,
                           TemplateEscape escape) {
  // Per thread: rendering a parsed template sets its error state, so a
  // template is never shared by two threads (EmitAll runs workflows in
  // parallel).
  thread_local std::map<std::string, std::unique_ptr<mustache::mustache>,
                        std::less<>>
      parsed;
  auto it = parsed.find(name);
  if (it == parsed.end()) {
    it = parsed
             .emplace(std::string(name), std::make_unique<mustache::mustache>(
                                             std::string(TemplateText(name))))
             .first;
  }
  mustache::mustache& tmpl = *it->second;
  if (escape == TemplateEscape::kNone)
    tmpl.set_custom_escape([](const std::string& s) { return s; });
  else
    tmpl.set_custom_escape(mustache::html_escape<std::string>);
  std::string out;
  if (tmpl.is_valid())
    tmpl.render(data, [&out](const std::string& text) { out += text; });
  if (!tmpl.is_valid()) {
    throw std::logic_error("template " + std::string(name) + ": " +
                           tmpl.error_message());
  }
  return out;
}

}  // namespace novacat
