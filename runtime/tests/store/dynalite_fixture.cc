// The ctest fixture around the store tests that need DynamoDB:
//
//   store_dynalite_fixture start <state-file>   (test store.dynalite.start)
//   store_dynalite_fixture stop <state-file>    (test store.dynalite.stop)
//
// `start` launches one dynalite for the whole ctest run and writes its
// endpoint and process group to <state-file>; the tests read the endpoint
// through NOVACAT_DYNALITE_STATE. `stop` kills that process group. A stale
// state file (a run interrupted before `stop`) is cleaned up by `start`.
#include <sys/types.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "dynalite.h"

namespace {

using novacat::store::testing::DynaliteServer;

void Stop(const std::string& state) {
  std::ifstream in(state);
  std::string endpoint;
  long pgid = 0;
  if (in && std::getline(in, endpoint) && (in >> pgid) && pgid > 0)
    DynaliteServer::Kill(static_cast<pid_t>(pgid));
  std::remove(state.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 ||
      (std::string(argv[1]) != "start" && std::string(argv[1]) != "stop")) {
    std::fprintf(stderr, "usage: %s start|stop <state-file>\n", argv[0]);
    return 2;
  }
  const std::string state = argv[2];
  Stop(state);
  if (std::string(argv[1]) == "stop") return 0;
  try {
    auto server = DynaliteServer::Start(/*die_with_parent=*/false);
    std::ofstream out(state);
    out << server->endpoint() << "\n" << server->pid() << "\n";
    if (!out.flush()) throw std::runtime_error("cannot write " + state);
    std::printf("dynalite at %s (process group %ld)\n",
                server->endpoint().c_str(), static_cast<long>(server->pid()));
    server->Release();
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "store.dynalite.start: %s\n", e.what());
    return 1;
  }
}
