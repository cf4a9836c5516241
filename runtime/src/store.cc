#include "novacat/runtime/store.h"

#include <string>

namespace novacat::runtime {

const char* LockStatusName(LockResult::Status status) {
  switch (status) {
    case LockResult::Status::kAcquired:
      return "ACQUIRED";
    case LockResult::Status::kHeldByOther:
      return "HELD_BY_OTHER";
    case LockResult::Status::kAlreadyDone:
      return "ALREADY_DONE";
  }
  return "ACQUIRED";
}

ItemKey LockKey(std::string_view idempotency_key) {
  return {"LOCK#" + std::string(idempotency_key), "LOCK"};
}

}  // namespace novacat::runtime
