#include "dynalite.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace novacat::store::testing {

namespace {

constexpr const char* kSetupHint =
    "run scripts/setup.sh (it installs node and `npm ci`s tests/tools)";

std::string DynaliteCli() {
  if (const char* cli = std::getenv("NOVACAT_DYNALITE_CLI")) return cli;
  return NOVACAT_DYNALITE_CLI;  // tests/tools/node_modules/dynalite/cli.js
}

std::string Node() {
  if (const char* node = std::getenv("NOVACAT_NODE")) return node;
  return "node";
}

// A port nothing listens on right now (the kernel's choice for port 0).
// Another process may take it before dynalite binds it: Start retries.
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("dynalite: socket() failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    close(fd);
    throw std::runtime_error("dynalite: cannot find a free port");
  }
  close(fd);
  return ntohs(address.sin_port);
}

bool Accepts(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  bool ok =
      connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  close(fd);
  return ok;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::unique_ptr<DynaliteServer> DynaliteServer::Start(bool die_with_parent) {
  const std::string cli = DynaliteCli();
  if (!std::filesystem::exists(cli))
    throw std::runtime_error("dynalite is not installed (" + cli +
                             " is missing): " + kSetupHint);
  const std::string node = Node();
  std::string last_failure;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const int port = FreePort();
    const std::string port_text = std::to_string(port);
    const auto log = std::filesystem::temp_directory_path() /
                     ("novacat_dynalite_" + std::to_string(getpid()) + "_" +
                      port_text + ".log");
    // Everything the child needs, prepared before fork: after it only
    // async-signal-safe calls are allowed.
    std::vector<std::string> args = {node,
                                     cli,
                                     "--host",
                                     "127.0.0.1",
                                     "--port",
                                     port_text,
                                     "--createTableMs",
                                     "0",
                                     "--deleteTableMs",
                                     "0",
                                     "--updateTableMs",
                                     "0"};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string log_path = log.string();
    const pid_t parent = getpid();

    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("dynalite: fork() failed");
    if (pid == 0) {
      setsid();  // its own session and process group: killed as a group
#ifdef __linux__
      if (die_with_parent) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1);
      }
#else
      (void)die_with_parent;
      (void)parent;
#endif
      // Detach from the caller's pipes (ctest waits for them to close).
      int null = open("/dev/null", O_RDWR);
      int out = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(null, STDIN_FILENO);
      dup2(out >= 0 ? out : null, STDOUT_FILENO);
      dup2(out >= 0 ? out : null, STDERR_FILENO);
      execvp(argv[0], argv.data());
      _exit(127);
    }

    // A bound on a stuck start, not on a slow one: a loaded machine (the
    // sanitized pass beside other work) can take many seconds to start node.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    for (;;) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        std::string output = ReadFile(log);
        std::filesystem::remove(log);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
          throw std::runtime_error("dynalite: cannot run '" + node +
                                   "': " + kSetupHint);
        last_failure = "dynalite exited (status " + std::to_string(status) +
                       ") on port " + port_text + ": " + output;
        break;  // EADDRINUSE, most likely: another port
      }
      if (Accepts(port)) {
        std::filesystem::remove(log);
        return std::unique_ptr<DynaliteServer>(
            new DynaliteServer("http://127.0.0.1:" + port_text, pid));
      }
      if (std::chrono::steady_clock::now() > deadline) {
        Kill(pid);
        waitpid(pid, &status, 0);
        std::string output = ReadFile(log);
        std::filesystem::remove(log);
        throw std::runtime_error("dynalite did not accept connections on " +
                                 port_text + " within 90 s: " + output);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  throw std::runtime_error("dynalite would not start: " + last_failure);
}

DynaliteServer::~DynaliteServer() {
  if (pid_ <= 0) return;
  Kill(pid_);
  int status = 0;
  waitpid(pid_, &status, 0);
}

namespace {

// True when the process group is gone or its leader (dynalite runs as one
// process) is a zombie: the fixture's server is reparented to PID 1, which
// may take seconds to reap it.
bool Gone(pid_t pgid) {
  if (::kill(-pgid, 0) != 0) return true;
  std::string stat = ReadFile("/proc/" + std::to_string(pgid) + "/stat");
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() &&
         stat[paren + 2] == 'Z';
}

}  // namespace

void DynaliteServer::Kill(pid_t pgid) {
  if (pgid <= 0 || ::kill(-pgid, SIGTERM) != 0) return;
  for (int i = 0; i < 100; ++i) {
    if (Gone(pgid)) return;
    // Our own child stays a zombie (and the group alive) until reaped.
    int status = 0;
    waitpid(pgid, &status, WNOHANG);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-pgid, SIGKILL);
}

std::string DynaliteEndpoint() {
  if (const char* state = std::getenv("NOVACAT_DYNALITE_STATE")) {
    std::ifstream in(state);
    std::string endpoint;
    if (!in || !std::getline(in, endpoint) || endpoint.empty())
      throw std::runtime_error(
          std::string("NOVACAT_DYNALITE_STATE names ") + state +
          ", which holds no endpoint: the ctest fixture store.dynalite.start "
          "did not run or failed (see its output; " +
          kSetupHint + ")");
    return endpoint;
  }
  // One server per process, started on first use, killed when the process
  // exits normally (and by the kernel otherwise).
  static std::mutex mutex;
  static std::unique_ptr<DynaliteServer> server;
  std::lock_guard lock(mutex);
  if (!server) server = DynaliteServer::Start(/*die_with_parent=*/true);
  return server->endpoint();
}

DynamoDbOptions DynaliteOptions(std::string table_name) {
  DynamoDbOptions options;
  options.endpoint = DynaliteEndpoint();
  options.region = "us-east-1";
  options.access_key_id = "fake";
  options.secret_access_key = "fake";
  options.table_name = std::move(table_name);
  return options;
}

std::string UniqueTableName() {
  static std::atomic<int> counter{0};
  // Appended piecewise: GCC 12's -Wrestrict misfires on "t" + to_string().
  std::string name = "t";
  name += std::to_string(getpid());
  name += "_";
  name += std::to_string(++counter);
  return name;
}

}  // namespace novacat::store::testing
