// Building nlohmann JSON objects without its brace initialization, which
// first builds every (key, value) pair as a two-element array and copies
// each value out of the initializer list: for the emitters that build
// thousands of small objects (the conformance plan), that was most of the
// cost of building them.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace novacat {

// Appends (key, value) to an object's members. An ordered_json object's
// members are a vector of pairs whose keys are const, so the vector cannot
// move them: each time it grows it copies every member, deep. Here it
// grows by moving the values (the keys are copied). For objects that grow
// large (a definition's states, the stack's resources).
inline void AppendMember(nlohmann::ordered_json::object_t& members,
                         std::string key, nlohmann::ordered_json value) {
  if (members.size() == members.capacity()) {
    nlohmann::ordered_json::object_t grown;
    grown.reserve(members.empty() ? 8 : 2 * members.size());
    for (auto& member : members)
      grown.emplace_back(member.first, std::move(member.second));
    members.swap(grown);
  }
  members.emplace_back(std::move(key), std::move(value));
}

inline void AppendMembers(nlohmann::ordered_json::object_t&) {}

// Appends (key, value) pairs to `members` in order, each value moved or
// copied in once. The keys must be distinct (nothing looks them up).
template <typename Value, typename... Rest>
void AppendMembers(nlohmann::ordered_json::object_t& members, std::string key,
                   Value&& value, Rest&&... rest) {
  members.emplace_back(std::move(key),
                       nlohmann::ordered_json(std::forward<Value>(value)));
  AppendMembers(members, std::forward<Rest>(rest)...);
}

// As JsonObject, with room for `room` members more, added later (by
// operator[] or AppendMember) without the object growing: growing copies
// every member, deep (see AppendMember), and so does reserving once there
// are members.
template <typename... Fields>
nlohmann::ordered_json JsonObjectWithRoom(size_t room, Fields&&... fields) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  auto& members = object.get_ref<nlohmann::ordered_json::object_t&>();
  members.reserve(sizeof...(fields) / 2 + room);
  AppendMembers(members, std::forward<Fields>(fields)...);
  return object;
}

// The object of the (key, value) pairs `fields`, in order, as
// ordered_json{{key, value}, ...} would be (its keys distinct):
// JsonObject("status", "FAILED", "waits", std::move(waits)).
template <typename... Fields>
nlohmann::ordered_json JsonObject(Fields&&... fields) {
  return JsonObjectWithRoom(0, std::forward<Fields>(fields)...);
}

}  // namespace novacat
