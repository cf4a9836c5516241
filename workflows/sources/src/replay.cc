#include "novacat/sources/replay.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "novacat/runtime/errors.h"

namespace novacat::sources {

// The recordings as ReplayServer::State holds them (a named namespace: a
// member of a class with external linkage must not have a type of an
// anonymous one).
namespace replay_internal {

struct Response {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct Exchange {
  std::string service;
  std::string method;
  std::string path;
  std::optional<nlohmann::json> params;  // name -> string or JSON
  std::optional<nlohmann::json> body;    // the JSON body
  std::vector<Response> responses;
  size_t served = 0;
};

}  // namespace replay_internal

namespace {

using nlohmann::json;
using replay_internal::Exchange;
using replay_internal::Response;

constexpr std::string_view kFormat = "novacat.recordings/1";

[[noreturn]] void Broken(const std::filesystem::path& file,
                         const std::string& what) {
  throw runtime::TerminalError(file.generic_string() + ": " + what);
}

std::string ReadFile(const std::filesystem::path& file,
                     const std::filesystem::path& from) {
  std::ifstream in(file, std::ios::binary);
  if (!in) Broken(from, "cannot read " + file.generic_string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<Exchange> LoadService(const std::filesystem::path& folder,
                                  const std::string& service) {
  std::filesystem::path file = folder / "recordings.json";
  json doc = json::parse(ReadFile(file, file), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) Broken(file, "not a JSON object");
  if (doc.value("format", "") != kFormat)
    Broken(file, "format must be \"" + std::string(kFormat) + "\"");
  if (doc.value("service", "") != service)
    Broken(file, "service must be \"" + service + "\", the folder's name");
  const json& exchanges = doc["exchanges"];
  if (!exchanges.is_array()) Broken(file, "exchanges must be an array");
  std::vector<Exchange> out;
  for (size_t i = 0; i < exchanges.size(); ++i) {
    const json& e = exchanges[i];
    std::string at = "exchanges[" + std::to_string(i) + "]";
    const json& request = e.contains("request") ? e["request"] : json();
    if (!request.is_object()) Broken(file, at + ".request must be an object");
    Exchange x;
    x.service = service;
    x.method = request.value("method", "GET");
    x.path = request.value("path", "");
    if (request.contains("params")) {
      if (!request["params"].is_object())
        Broken(file, at + ".request.params must be an object");
      x.params = request["params"];
    }
    if (request.contains("json")) x.body = request["json"];
    if (x.params && x.body)
      Broken(file, at + ".request has both params and json");
    const json& responses = e.contains("responses") ? e["responses"] : json();
    if (!responses.is_array() || responses.empty())
      Broken(file, at + ".responses must be a non-empty array");
    for (size_t r = 0; r < responses.size(); ++r) {
      const json& rj = responses[r];
      std::string rat = at + ".responses[" + std::to_string(r) + "]";
      if (!rj.is_object() || !rj.value("status", json()).is_number_integer())
        Broken(file, rat + " must be an object with an integer status");
      Response response;
      response.status = rj["status"].get<int>();
      const json headers = rj.value("headers", json::object());
      for (const auto& [name, value] : headers.items()) {
        if (!value.is_string())
          Broken(file, rat + ".headers." + name + " must be a string");
        response.headers.emplace_back(name, value.get<std::string>());
      }
      if (rj.contains("body_file")) {
        response.body =
            ReadFile(folder / rj["body_file"].get<std::string>(), file);
      } else if (rj.contains("body")) {
        if (!rj["body"].is_string())
          Broken(file, rat + ".body must be a string");
        response.body = rj["body"].get<std::string>();
      }
      x.responses.push_back(std::move(response));
    }
    out.push_back(std::move(x));
  }
  return out;
}

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool ValueMatches(const json& recorded, const std::string& sent) {
  if (recorded.is_string()) return recorded.get<std::string>() == sent;
  json parsed = json::parse(sent, nullptr, false);
  return !parsed.is_discarded() && parsed == recorded;
}

bool ParamsMatch(const json& recorded, const httplib::Params& sent) {
  if (recorded.size() != sent.size()) return false;
  for (const auto& [name, value] : sent) {
    if (!recorded.contains(name) || !ValueMatches(recorded[name], value))
      return false;
  }
  return true;
}

}  // namespace

const std::vector<std::string>& RecordedServices() {
  static const std::vector<std::string> services = {"ads",    "eso", "mast",
                                                    "simbad", "tns", "vsx"};
  return services;
}

struct ReplayServer::State {
  httplib::Server server;
  std::thread thread;
  std::atomic<bool> listening_ended{false};
  int port = 0;
  mutable std::mutex mutex;
  std::vector<replay_internal::Exchange> exchanges;
  std::vector<std::string> unmatched;

  void Answer(const httplib::Request& req, httplib::Response& res) {
    // "/<service><path>"
    std::string_view path = req.path;
    size_t slash = path.find('/', 1);
    std::string service(path.substr(1, slash == std::string_view::npos
                                           ? std::string_view::npos
                                           : slash - 1));
    std::string rest(slash == std::string_view::npos ? "" : path.substr(slash));
    // The URL query, or a urlencoded form body (httplib reads both).
    const httplib::Params& params = req.params;
    std::lock_guard lock(mutex);
    for (Exchange& x : exchanges) {
      if (x.service != service || x.method != req.method || x.path != rest)
        continue;
      if (x.body) {
        json sent = json::parse(req.body, nullptr, false);
        if (sent.is_discarded() || sent != *x.body) continue;
      } else if (!ParamsMatch(x.params.value_or(json::object()), params)) {
        continue;
      }
      const Response& r =
          x.responses[std::min(x.served, x.responses.size() - 1)];
      ++x.served;
      res.status = r.status;
      std::string content_type = "text/plain";
      for (const auto& [name, value] : r.headers) {
        if (SameName(name, "Content-Type")) {
          content_type = value;
        } else {
          res.set_header(name, value);
        }
      }
      res.set_content(r.body, content_type);
      return;
    }
    std::string what = "no recording for " + req.method + " " + req.path;
    for (const auto& [name, value] : params) what += " " + name + "=" + value;
    if (!req.body.empty() && params.empty()) what += " " + req.body;
    unmatched.push_back(what);
    res.status = 404;
    res.set_content(what, "text/plain");
  }
};

ReplayServer::ReplayServer(const std::filesystem::path& root, int port)
    : state_(std::make_unique<State>()) {
  if (!std::filesystem::is_directory(root))
    throw runtime::TerminalError("the recordings folder " +
                                 root.generic_string() + " does not exist");
  for (const std::string& service : RecordedServices()) {
    std::filesystem::path folder = root / service;
    if (!std::filesystem::exists(folder / "recordings.json")) continue;
    for (Exchange& x : LoadService(folder, service))
      state_->exchanges.push_back(std::move(x));
  }
  State* state = state_.get();
  auto handler = [state](const httplib::Request& req, httplib::Response& res) {
    state->Answer(req, res);
  };
  state->server.Get(".*", handler);
  state->server.Post(".*", handler);
  state->port =
      port == 0 ? state->server.bind_to_any_port("127.0.0.1")
                : (state->server.bind_to_port("127.0.0.1", port) ? port : -1);
  if (state->port <= 0)
    throw runtime::TerminalError(
        "the replay server cannot listen on "
        "127.0.0.1:" +
        std::to_string(port));
  // Bound already: a request sent before the loop starts waits in the
  // listen backlog. The loop must be running before the constructor
  // returns, since httplib's stop() does nothing to a loop not yet started
  // (which would then never end).
  state->thread = std::thread([state] {
    state->server.listen_after_bind();
    state->listening_ended = true;
  });
  while (!state->server.is_running() && !state->listening_ended)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

ReplayServer::~ReplayServer() {
  state_->server.stop();
  if (state_->thread.joinable()) state_->thread.join();
}

int ReplayServer::port() const { return state_->port; }

std::string ReplayServer::BaseUrl(std::string_view service) const {
  return "http://127.0.0.1:" + std::to_string(state_->port) + "/" +
         std::string(service);
}

std::vector<std::string> ReplayServer::unmatched() const {
  std::lock_guard lock(state_->mutex);
  return state_->unmatched;
}

}  // namespace novacat::sources
