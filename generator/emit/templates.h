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

// Renders templates/<name> with `data`, parsed once per process. Values
// are HTML-escaped with kHtml (Mustache's default) and left as they are with
// kNone (the emitter escaped them for their target). Throws
// std::logic_error naming the template when it is not valid Mustache (a
// bug, not bad input). Threads may render at once.
std::string RenderTemplate(std::string_view name,
                           const kainjow::mustache::data& data,
                           TemplateEscape escape);

// kainjow's data::set and data::push_back take a const reference and copy
// the value with everything under it, so a list of records nested three
// deep was copied three times over (a tenth of `--check`). These move it.
// `object` is an object and `list` a list (data::type::list).
inline void Put(kainjow::mustache::data& object, const std::string& key,
                kainjow::mustache::data value) {
  object[key] = std::move(value);
}
inline void Append(kainjow::mustache::data& list,
                   kainjow::mustache::data value) {
  // The list is not const, only list_value()'s view of it. data's move
  // constructor is not noexcept, so the vector would copy every element
  // as it grows: it grows here, by moves.
  auto& items = const_cast<kainjow::mustache::list&>(list.list_value());
  if (items.size() == items.capacity()) {
    kainjow::mustache::list grown;
    grown.reserve(items.empty() ? 4 : 2 * items.size());
    for (auto& item : items) grown.push_back(std::move(item));
    items.swap(grown);
  }
  items.push_back(std::move(value));
}

// An empty list, for Append.
inline kainjow::mustache::data List() {
  return kainjow::mustache::data(kainjow::mustache::data::type::list);
}

// An object of the (key, value) pairs `fields`, each moved in (an
// initializer list of mustache::object copies every value twice):
// Object("name", a, "type", b).
inline void PutAll(kainjow::mustache::data&) {}
template <typename Value, typename... Rest>
void PutAll(kainjow::mustache::data& object, const std::string& key,
            Value&& value, Rest&&... rest) {
  Put(object, key, kainjow::mustache::data(std::forward<Value>(value)));
  PutAll(object, std::forward<Rest>(rest)...);
}
template <typename... Fields>
kainjow::mustache::data Object(Fields&&... fields) {
  kainjow::mustache::data object;
  PutAll(object, std::forward<Fields>(fields)...);
  return object;
}

}  // namespace novacat
