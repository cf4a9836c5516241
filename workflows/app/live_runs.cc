#include "live_runs.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "novacat/runtime/errors.h"

namespace novacat::workflows {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLockSuffix = ".lock";
constexpr const char* kInfoSuffix = ".json";

[[noreturn]] void FailIo(const std::string& what, const fs::path& path) {
  throw runtime::TerminalError(what + " " + path.string() + ": " +
                               std::strerror(errno));
}

std::optional<std::string> StringAt(const nlohmann::json& document,
                                    const char* name) {
  auto it = document.find(name);
  if (it == document.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<std::string> OptionalString(const nlohmann::json& info,
                                          const char* name) {
  return StringAt(info, name);
}

}  // namespace

LiveRun::LiveRun(const fs::path& folder, const std::string& name,
                 const std::string& workflow)
    : lock_path_(folder / (name + kLockSuffix)),
      info_path_(folder / (name + kInfoSuffix)) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec)
    throw runtime::TerminalError("create " + folder.string() + ": " +
                                 ec.message());
  const fs::path pending = folder / ("." + name + kLockSuffix);
  fd_ = ::open(pending.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) FailIo("create", pending);
  if (::flock(fd_, LOCK_EX) != 0) FailIo("lock", pending);
  info_ = {{"execution", name}, {"workflow", workflow}};
  Write();
  fs::rename(pending, lock_path_);
}

LiveRun::~LiveRun() {
  std::error_code ec;
  fs::remove(info_path_, ec);
  fs::remove(lock_path_, ec);
  if (fd_ >= 0) ::close(fd_);
}

void LiveRun::Note(const nlohmann::json& document,
                   const runtime::WorkflowFacts& facts) {
  if (!document.is_object()) return;
  nlohmann::ordered_json before = info_;
  if (auto id = StringAt(document, "job_run_id");
      id && !info_.contains("job_run_id"))
    info_["job_run_id"] = *id;
  if (auto nova = StringAt(document, "nova_id")) info_["nova_id"] = *nova;
  if (auto partition = runtime::RunNovaId(document, facts))
    info_["record_nova_id"] = *partition;
  if (document.value("idempotency_status", "") == "ACQUIRED")
    if (auto key = StringAt(document, "workflow_idempotency_key"))
      info_["idempotency_key"] = *key;
  if (info_ != before) Write();
}

void LiveRun::Write() {
  const fs::path temporary =
      info_path_.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << info_.dump() << '\n';
    if (!out.flush()) FailIo("write", temporary);
  }
  fs::rename(temporary, info_path_);
}

std::vector<ReapedRun> ReapDeadRuns(const fs::path& folder,
                                    runtime::RecordStore& records,
                                    store::Repository& repository,
                                    int64_t now) {
  std::vector<ReapedRun> out;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return out;
  std::vector<fs::path> locks;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string file = entry.path().filename().string();
    if (file.size() > std::strlen(kLockSuffix) && file[0] != '.' &&
        entry.path().extension() == kLockSuffix)
      locks.push_back(entry.path());
  }
  std::sort(locks.begin(), locks.end());
  for (const fs::path& lock : locks) {
    int fd = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;  // removed by its run, or by another sweeper
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {  // alive
      ::close(fd);
      continue;
    }
    const fs::path info_path = fs::path(lock).replace_extension(kInfoSuffix);
    nlohmann::json info = nlohmann::json::object();
    {
      std::ifstream in(info_path);
      std::stringstream text;
      text << in.rdbuf();
      info = nlohmann::json::parse(text.str(), nullptr, false);
    }
    if (info.is_object() && OptionalString(info, "job_run_id")) {
      ReapedRun reaped;
      reaped.execution = info.value("execution", "");
      reaped.workflow = info.value("workflow", "");
      reaped.run.job_run_id = *OptionalString(info, "job_run_id");
      reaped.run.record_nova_id = OptionalString(info, "record_nova_id");
      reaped.run.nova_id = OptionalString(info, "nova_id");
      reaped.run.idempotency_key = OptionalString(info, "idempotency_key");
      reaped.reaped =
          store::ReapRun(records, repository, reaped.run, "ABORTED",
                         "the process running execution " + reaped.execution +
                             " ended before the run did",
                         now);
      out.push_back(std::move(reaped));
    }
    fs::remove(info_path, ec);
    fs::remove(lock, ec);
    ::close(fd);
  }
  return out;
}

}  // namespace novacat::workflows
