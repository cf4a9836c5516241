#include "novacat/runtime/asl/json_path.h"

namespace novacat::runtime::asl {

std::optional<Path> ParsePath(const std::string& text) {
  Path path;
  size_t at = 0;
  if (text.rfind("$$", 0) == 0) {
    path.context = true;
    at = 2;
  } else if (text.rfind("$", 0) == 0) {
    at = 1;
    const auto word = [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
             (c >= '0' && c <= '9');
    };
    if (at < text.size() && word(text[at]) &&
        !(text[at] >= '0' && text[at] <= '9')) {
      while (at < text.size() && word(text[at])) ++at;
      path.variable = text.substr(1, at - 1);
      if (!IsVariableName(path.variable)) return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  while (at < text.size()) {
    if (text[at] == '.') {
      size_t start = ++at;
      while (at < text.size() && text[at] != '.' && text[at] != '[') ++at;
      std::string name = text.substr(start, at - start);
      if (name.empty() || name == "*") return std::nullopt;
      path.steps.emplace_back(name);
    } else if (text[at] == '[') {
      ++at;
      if (at < text.size() && (text[at] == '\'' || text[at] == '"')) {
        char quote = text[at++];
        size_t end = text.find(quote, at);
        if (end == std::string::npos || end + 1 >= text.size() ||
            text[end + 1] != ']')
          return std::nullopt;
        path.steps.emplace_back(text.substr(at, end - at));
        at = end + 2;
      } else {
        size_t end = text.find(']', at);
        if (end == std::string::npos || end == at) return std::nullopt;
        std::string digits = text.substr(at, end - at);
        for (char c : digits)
          if (c < '0' || c > '9') return std::nullopt;
        path.steps.emplace_back(static_cast<size_t>(std::stoull(digits)));
        at = end + 1;
      }
    } else {
      return std::nullopt;
    }
  }
  return path;
}

bool IsVariableName(const std::string& name) {
  if (name.empty() || name.size() > 80) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && (i == 0 || c < '0' || c > '9')) return false;
  }
  return true;
}

const nlohmann::ordered_json* Find(const nlohmann::ordered_json& root,
                                   const Path& path, size_t first) {
  const nlohmann::ordered_json* at = &root;
  for (size_t i = first; i < path.steps.size(); ++i) {
    const auto& step = path.steps[i];
    if (const auto* name = std::get_if<std::string>(&step)) {
      if (!at->is_object()) return nullptr;
      auto it = at->find(*name);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else {
      size_t index = std::get<size_t>(step);
      if (!at->is_array() || index >= at->size()) return nullptr;
      at = &(*at)[index];
    }
  }
  return at;
}

namespace {

// object[name] = value, growing the object by moves when `name` is new: an
// ordered_json object's members are pairs with const keys, which
// std::vector copies, deep, each time it grows (a ResultPath adding a
// field copied the whole state document).
void SetMember(nlohmann::ordered_json& object, const std::string& name,
               nlohmann::ordered_json value) {
  auto& members = object.get_ref<nlohmann::ordered_json::object_t&>();
  for (auto& member : members) {
    if (member.first == name) {
      member.second = std::move(value);
      return;
    }
  }
  if (members.size() == members.capacity()) {
    nlohmann::ordered_json::object_t grown;
    grown.reserve(members.empty() ? 4 : 2 * members.size());
    for (auto& member : members)
      grown.emplace_back(member.first, std::move(member.second));
    members.swap(grown);
  }
  members.emplace_back(name, std::move(value));
}

}  // namespace

bool Assign(nlohmann::ordered_json& root, const Path& path,
            nlohmann::ordered_json value) {
  if (path.steps.empty()) {
    root = std::move(value);
    return true;
  }
  nlohmann::ordered_json* at = &root;
  for (size_t i = 0; i < path.steps.size(); ++i) {
    const auto* name = std::get_if<std::string>(&path.steps[i]);
    if (!name) return false;
    if (at->is_null()) *at = nlohmann::ordered_json::object();
    if (!at->is_object()) return false;
    if (i + 1 == path.steps.size()) {
      SetMember(*at, *name, std::move(value));
      return true;
    }
    at = &(*at)[*name];
  }
  return true;
}

}  // namespace novacat::runtime::asl
