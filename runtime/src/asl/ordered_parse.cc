#include "novacat/runtime/asl/ordered_parse.h"

#include <cstddef>
#include <unordered_map>
#include <utility>
#include <vector>

namespace novacat::runtime::asl {

namespace {

using Json = nlohmann::ordered_json;

// nlohmann's SAX interface, building the value bottom-up. Each open object
// has an index of its keys; a value goes to the slot of the last key read
// (or is appended to the open array).
class Builder : public nlohmann::json_sax<Json> {
 public:
  Json result;
  std::string error;

  bool null() override { return Put(Json(nullptr)); }
  bool boolean(bool v) override { return Put(Json(v)); }
  bool number_integer(number_integer_t v) override { return Put(Json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Put(Json(v)); }
  bool number_float(number_float_t v, const string_t&) override {
    return Put(Json(v));
  }
  bool string(string_t& v) override { return Put(Json(std::move(v))); }
  bool binary(binary_t& v) override { return Put(Json::binary(std::move(v))); }
  bool start_object(std::size_t) override {
    Json* at = Put(Json::object());
    open_.push_back({at, {}, 0});
    return true;
  }
  bool key(string_t& k) override {
    Open& o = open_.back();
    auto& members = o.value->get_ref<Json::object_t&>();
    auto [it, inserted] = o.index.emplace(k, members.size());
    // A repeated key: its first position, its last value.
    if (inserted) members.emplace_back(std::move(k), nullptr);
    o.slot = it->second;
    return true;
  }
  bool end_object() override {
    open_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    Json* at = Put(Json::array());
    open_.push_back({at, {}, 0});
    return true;
  }
  bool end_array() override {
    open_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&,
                   const Json::exception& e) override {
    error = e.what();
    return false;
  }

 private:
  struct Open {
    Json* value;  // stays valid: its parent does not grow while it is open
    std::unordered_map<std::string, std::size_t> index;  // objects only
    std::size_t slot;  // the member the next value goes to (objects)
  };

  // Stores `v` where the parse is, and returns where it went.
  Json* Put(Json v) {
    if (open_.empty()) {
      result = std::move(v);
      return &result;
    }
    Open& o = open_.back();
    if (o.value->is_array()) {
      auto& items = o.value->get_ref<Json::array_t&>();
      items.push_back(std::move(v));
      return &items.back();
    }
    // ordered_map's operator[] takes a key: the slot is reached as the
    // vector it is.
    auto& member = *(o.value->get_ref<Json::object_t&>().begin() +
                     static_cast<std::ptrdiff_t>(o.slot));
    member.second = std::move(v);
    return &member.second;
  }

  std::vector<Open> open_;
};

}  // namespace

std::optional<Json> ParseOrderedJson(std::string_view text,
                                     std::string* error) {
  Builder builder;
  bool ok = Json::sax_parse(text.begin(), text.end(), &builder);
  if (!ok) {
    if (error) *error = builder.error;
    return std::nullopt;
  }
  return std::move(builder.result);
}

}  // namespace novacat::runtime::asl
