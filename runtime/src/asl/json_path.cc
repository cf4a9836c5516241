#include "novacat/runtime/asl/json_path.h"

#include <algorithm>

namespace novacat::runtime::asl {

namespace {

// An integer of at most 18 digits, optionally negative; nullopt otherwise.
std::optional<long long> Integer(const std::string& text) {
  size_t digits = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() == digits || text.size() - digits > 18) return std::nullopt;
  for (size_t i = digits; i < text.size(); ++i)
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
  return std::stoll(text);
}

// The selector of a bracket's inside (`*`, `a:b`, `0,2`, `3`), or the
// reason it is refused.
std::optional<Selector> Bracket(const std::string& inside, std::string* why) {
  Selector s;
  if (inside == "*") {
    s.kind = Selector::Kind::kWildcard;
    return s;
  }
  if (!inside.empty() && inside[0] == '?') {
    *why = "filter expressions ([?(...)]) are not supported by the executor";
    return std::nullopt;
  }
  if (size_t colon = inside.find(':'); colon != std::string::npos) {
    if (inside.find(':', colon + 1) != std::string::npos) {
      *why = "slices with a step are not supported by the executor";
      return std::nullopt;
    }
    s.kind = Selector::Kind::kSlice;
    const std::string from = inside.substr(0, colon);
    const std::string to = inside.substr(colon + 1);
    if (!from.empty() && !(s.start = Integer(from))) return std::nullopt;
    if (!to.empty() && !(s.end = Integer(to))) return std::nullopt;
    return s;
  }
  size_t at = 0;
  while (true) {
    const size_t comma = inside.find(',', at);
    std::optional<long long> index = Integer(inside.substr(at, comma - at));
    if (!index) return std::nullopt;
    s.indexes.push_back(*index);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  s.kind =
      s.indexes.size() == 1 ? Selector::Kind::kIndex : Selector::Kind::kIndexes;
  if (s.kind == Selector::Kind::kIndex && s.indexes[0] < 0) {
    *why = "negative indexes are not supported by the executor";
    return std::nullopt;
  }
  return s;
}

}  // namespace

std::optional<Path> ParsePath(const std::string& text, std::string* why) {
  std::string ignored;
  if (!why) why = &ignored;
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
  // A selector: a step of the definite part while there is no query yet
  // and it matches one node, else the query's next selector.
  const auto add = [&path](Selector s) {
    if (path.query.empty() && s.kind == Selector::Kind::kName) {
      path.steps.emplace_back(std::move(s.name));
    } else if (path.query.empty() && s.kind == Selector::Kind::kIndex) {
      path.steps.emplace_back(static_cast<size_t>(s.indexes[0]));
    } else {
      path.query.push_back(std::move(s));
    }
  };
  while (at < text.size()) {
    if (text.compare(at, 2, "..") == 0) {
      at += 2;
      Selector s;
      s.kind = Selector::Kind::kDescend;
      if (text.compare(at, 2, "['") == 0 || text.compare(at, 2, "[\"") == 0) {
        const char quote = text[at + 1];
        const size_t end = text.find(quote, at + 2);
        if (end == std::string::npos || end + 1 >= text.size() ||
            text[end + 1] != ']')
          return std::nullopt;
        s.name = text.substr(at + 2, end - at - 2);
        at = end + 2;
      } else {
        const size_t start = at;
        while (at < text.size() && text[at] != '.' && text[at] != '[') ++at;
        s.name = text.substr(start, at - start);
      }
      if (s.name.empty() || s.name == "*") {
        *why = "`..` is supported before a member name only";
        return std::nullopt;
      }
      add(std::move(s));
    } else if (text[at] == '.') {
      const size_t start = ++at;
      while (at < text.size() && text[at] != '.' && text[at] != '[') ++at;
      Selector s;
      s.name = text.substr(start, at - start);
      if (s.name.empty()) return std::nullopt;
      if (s.name == "*") s.kind = Selector::Kind::kWildcard;
      add(std::move(s));
    } else if (text[at] == '[') {
      ++at;
      if (at < text.size() && (text[at] == '\'' || text[at] == '"')) {
        const char quote = text[at++];
        const size_t end = text.find(quote, at);
        if (end == std::string::npos || end + 1 >= text.size())
          return std::nullopt;
        if (text[end + 1] == ',') {
          *why = "lists of member names are not supported by the executor";
          return std::nullopt;
        }
        if (text[end + 1] != ']') return std::nullopt;
        Selector s;
        s.name = text.substr(at, end - at);
        add(std::move(s));
        at = end + 2;
      } else {
        const size_t end = text.find(']', at);
        if (end == std::string::npos || end == at) return std::nullopt;
        std::optional<Selector> s = Bracket(text.substr(at, end - at), why);
        if (!s) return std::nullopt;
        add(std::move(*s));
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

using Json = nlohmann::ordered_json;

// Where an index of an array of `size` elements points: negative ones
// count from the end; nullopt past either end.
std::optional<size_t> At(long long index, size_t size) {
  const long long n = static_cast<long long>(size);
  if (index < 0) index += n;
  if (index < 0 || index >= n) return std::nullopt;
  return static_cast<size_t>(index);
}

// A slice bound as Python and Jayway clamp it: negative from the end, then
// within [0, size].
size_t Bound(long long bound, size_t size) {
  const long long n = static_cast<long long>(size);
  if (bound < 0) bound = std::max(0LL, bound + n);
  return static_cast<size_t>(std::min(bound, n));
}

// Every member named `name` of `node` and of the nodes below it, a node's
// own before those below it (pre-order, members in document order), as
// Jayway's scan collects them.
void Descend(const Json& node, const std::string& name,
             std::vector<const Json*>& out) {
  if (node.is_object()) {
    auto it = node.find(name);
    if (it != node.end()) out.push_back(&*it);
    for (const auto& member : node) Descend(member, name, out);
  } else if (node.is_array()) {
    for (const auto& element : node) Descend(element, name, out);
  }
}

}  // namespace

std::optional<Json> Query(const Json& at, const Path& path) {
  const Selector::Kind first = path.query.front().kind;
  if ((first == Selector::Kind::kSlice || first == Selector::Kind::kIndexes) &&
      !at.is_array())
    return std::nullopt;
  std::vector<const Json*> nodes = {&at};
  std::vector<const Json*> next;
  for (const Selector& s : path.query) {
    next.clear();
    for (const Json* node : nodes) {
      switch (s.kind) {
        case Selector::Kind::kName:
          if (node->is_object()) {
            auto it = node->find(s.name);
            if (it != node->end()) next.push_back(&*it);
          }
          break;
        case Selector::Kind::kIndex:
        case Selector::Kind::kIndexes:
          if (!node->is_array()) break;
          for (long long index : s.indexes)
            if (auto i = At(index, node->size())) next.push_back(&(*node)[*i]);
          break;
        case Selector::Kind::kWildcard:
          if (node->is_array() || node->is_object())
            for (const auto& child : *node) next.push_back(&child);
          break;
        case Selector::Kind::kSlice: {
          if (!node->is_array()) break;
          const size_t from = Bound(s.start.value_or(0), node->size());
          const size_t to = s.end ? Bound(*s.end, node->size()) : node->size();
          for (size_t i = from; i < to; ++i) next.push_back(&(*node)[i]);
          break;
        }
        case Selector::Kind::kDescend:
          Descend(*node, s.name, next);
          break;
      }
    }
    nodes.swap(next);
  }
  Json out = Json::array();
  out.get_ref<Json::array_t&>().reserve(nodes.size());
  for (const Json* node : nodes) out.push_back(*node);
  return out;
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
