// The Mustache templates of templates/, embedded in novacat-gen at build
// time (cmake/embed_templates.cmake).
#pragma once

#include <kainjow/mustache.hpp>
#include <string>
#include <string_view>

namespace novacat {

// The text of templates/<name>; throws std::logic_error for an unknown name
// (a bug, not bad input).
std::string_view TemplateText(std::string_view name);

enum class TemplateEscape { kNone, kHtml };

// Renders templates/<name> with `data`. The template is parsed once per
// thread and reused (parsing it for every render was a measurable part of
// `--check`); values are HTML-escaped with kHtml (Mustache's default) and
// left as they are with kNone (the emitter escaped them for their target).
// Throws std::logic_error naming the template when it is not valid
// Mustache (a bug, not bad input).
std::string RenderTemplate(std::string_view name,
                           const kainjow::mustache::data& data,
                           TemplateEscape escape);

}  // namespace novacat
