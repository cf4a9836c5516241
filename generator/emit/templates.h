// The Mustache templates of templates/, embedded in novacat-gen at build
// time (cmake/embed_templates.cmake).
#pragma once

#include <string_view>

namespace novacat {

// The text of templates/<name>; throws std::logic_error for an unknown name
// (a bug, not bad input).
std::string_view TemplateText(std::string_view name);

}  // namespace novacat
