#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "emit/templates.h"

namespace novacat {

namespace mustache = kainjow::mustache;

namespace {

// The parsed template `name` with `escape`, parsed at its first render and
// kept for the process's later ones (kainjow's parser is slow, and a run
// renders each template once per workflow). Rendering only reads a
// template: kainjow writes to one on an error (a template compiled into the
// binary that parsed has none when rendered: no partials, no lambdas) and
// in set_custom_escape, called here before the template is shared; so
// threads may render at once, and the mutex guards only the map.
const mustache::mustache& Parsed(std::string_view name, TemplateEscape escape) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, TemplateEscape>,
                  std::unique_ptr<mustache::mustache>>
      parsed;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& tmpl = parsed[std::make_pair(std::string(name), escape)];
  if (tmpl) return *tmpl;
  auto fresh =
      std::make_unique<mustache::mustache>(std::string(TemplateText(name)));
  if (!fresh->is_valid()) {
    throw std::logic_error("template " + std::string(name) + ": " +
                           fresh->error_message());
  }
  if (escape == TemplateEscape::kNone)
    fresh->set_custom_escape([](const std::string& s) { return s; });
  else
    fresh->set_custom_escape(mustache::html_escape<std::string>);
  tmpl = std::move(fresh);
  return *tmpl;
}

}  // namespace

std::string RenderTemplate(std::string_view name, const mustache::data& data,
                           TemplateEscape escape) {
  // render() is not const (it records an error), though it writes nothing
  // on a template that parsed: see Parsed.
  auto& tmpl = const_cast<mustache::mustache&>(Parsed(name, escape));
  std::string out;
  tmpl.render(data, [&out](const std::string& text) { out += text; });
  if (!tmpl.is_valid()) {
    throw std::logic_error("template " + std::string(name) + ": " +
                           tmpl.error_message());
  }
  return out;
}

}  // namespace novacat
