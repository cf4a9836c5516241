// Runs every emitter over checked specs and collects their files.
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "emit/cpp_emitter.h"
#include "emit/stack_emitter.h"
#include "model/spec.h"
#include "support/file_set.h"
#include "support/parallel.h"

namespace novacat {

// The emitters of each workflow, started as soon as its spec is checked:
// they run on the other cores while the caller loads the next spec. Finish
// adds the stack (the whole set's) and joins the files in the order the
// specs were started: the same bytes whatever the scheduling.
class Emission {
 public:
  // With `out_dir`, each file is compared with the one there as soon as it
  // is made, on the job's thread (GeneratedFile::matched_disk). With
  // Scaffolds::kSkip the FileSet holds no scaffold.
  explicit Emission(std::string out_dir = "",
                    Scaffolds scaffolds = Scaffolds::kMake);
  Emission(const Emission&) = delete;
  Emission& operator=(const Emission&) = delete;

  // Queues the emitters of `spec`, which must have passed the checker and
  // outlive this object (its destructor waits for jobs still running).
  void Start(const WorkflowSpec& spec);

  // The files of every spec started; `specs` must be those, in the order
  // started. Rethrows what an emitter threw (a bug, not bad input).
  FileSet Finish(const std::vector<std::unique_ptr<WorkflowSpec>>& specs) &&;

 private:
  // What the emitters make of one workflow, before it joins the FileSet.
  // Each job writes its own members.
  struct Workflow {
    const WorkflowSpec* spec = nullptr;
    // The definition and the workflow's share of the stack, made once by
    // Definition: by the workflow's first job, or by the stack's when it
    // gets there first.
    std::once_flag definition;
    std::string asl;       // EmitAsl(*spec)
    StackPart stack_part;  // EmitStackPart(*spec, asl); the stack's job
                           // moves it out
    CppFiles cpp;
    std::string conformance;
    std::string readme;
    std::string dot;
    std::vector<std::string> schemas;  // one per spec->events, in order
  };
  // Adds `path` to matched_ when the file there in out_dir_ holds
  // `content`. Called by the jobs, concurrently.
  void Compare(const std::string& path, const std::string& content);
  // Makes `w`'s definition and stack share unless done; when another
  // thread is making them, waits for it (it is running, so this ends).
  static void Definition(Workflow& w);

  const std::string out_dir_;  // "": compare nothing
  const Scaffolds scaffolds_;
  std::mutex matched_mutex_;
  std::set<std::string> matched_;   // paths whose file in out_dir_ matched
  std::deque<Workflow> workflows_;  // a deque: jobs hold references
  JobQueue jobs_;  // last: destroyed first, it waits for the jobs
};

// The files generated for `specs` (which must have passed the checker),
// paths relative to the output folder. An event several specs use comes
// from the event catalog, so each emits the same schema file.
FileSet EmitAll(const std::vector<std::unique_ptr<WorkflowSpec>>& specs);

}  // namespace novacat
