# Writes OUTPUT, a C++ source defining novacat::TemplateText(name) over every
# *.mustache file in TEMPLATES_DIR, so novacat-gen carries its templates and
# works from any folder. Run with `cmake -P`.
file(GLOB TEMPLATES "${TEMPLATES_DIR}/*.mustache")
list(SORT TEMPLATES)
set(body "")
foreach(path IN LISTS TEMPLATES)
  get_filename_component(name "${path}" NAME)
  file(READ "${path}" text)
  string(APPEND body "    {\"${name}\", R\"NOVACAT_TEMPLATE(${text})NOVACAT_TEMPLATE\"},\n")
endforeach()
file(WRITE "${OUTPUT}.new" "// Generated from templates/ by cmake/embed_templates.cmake.
#include \"emit/templates.h\"

#include <map>
#include <stdexcept>
#include <string>

namespace novacat {

std::string_view TemplateText(std::string_view name) {
  static const std::map<std::string, std::string, std::less<>> kTemplates = {
${body}  };
  auto it = kTemplates.find(name);
  if (it == kTemplates.end())
    throw std::logic_error(\"no template \" + std::string(name));
  return it->second;
}

}  // namespace novacat
")
file(COPY_FILE "${OUTPUT}.new" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.new")
