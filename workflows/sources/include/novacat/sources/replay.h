// The replay server: the public archives' recorded answers served on
// 127.0.0.1, so that the clients run over HTTP, through the same code as
// against the real services, with nothing reachable (`novacat run
// --sources recorded`, the tests, `novacat sources replay` for a Lambda
// package under test).
//
// Recordings live in one folder per service under a root
// (fixtures/archives/<service>/recordings.json, format
// "novacat.recordings/1"; fixtures/archives/README.md describes it). A
// service's base URL is http://127.0.0.1:<port>/<service>; a request's path
// after that prefix, its method and its parameters (the URL query, or a
// urlencoded form body) or its JSON body select the exchange:
//
//   {"request": {"method": "POST", "path": "/sync",
//                "params": {"QUERY": "SELECT ..."}},    every key and value
//    "responses": [{"status": 503, "headers": {"Retry-After": "120"},
//                   "body": "..."},
//                  {"status": 200, "headers": {...}, "body_file": "a.xml"}]}
//
// A recorded parameter that is a JSON object or array matches a sent value
// that parses to the same JSON; `"json": {...}` instead of `params` matches
// a request body that parses to it. An exchange's responses are served in
// order, the last one repeated, counted per server. A request no exchange
// matches is answered 404 with a body naming it ("no recording for POST
// /simbad/sync QUERY=..."), and kept in unmatched().
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace novacat::sources {

// The services recorded, in the order their folders are read: "ads", "eso",
// "mast", "simbad", "tns", "vsx".
const std::vector<std::string>& RecordedServices();

class ReplayServer {
 public:
  // Loads every <root>/<service>/recordings.json and listens on 127.0.0.1
  // at `port` (0: a free port). Throws runtime::TerminalError naming the
  // file and the member for a recording that cannot be read, or when the
  // port cannot be bound.
  explicit ReplayServer(const std::filesystem::path& root, int port = 0);
  ~ReplayServer();  // stops serving
  ReplayServer(const ReplayServer&) = delete;
  ReplayServer& operator=(const ReplayServer&) = delete;

  int port() const;
  // "http://127.0.0.1:<port>/<service>".
  std::string BaseUrl(std::string_view service) const;
  // The requests answered 404 so far, as their 404 bodies say them.
  std::vector<std::string> unmatched() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace novacat::sources
