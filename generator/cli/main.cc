// novacat-gen: compiles workflow specs into generated/.
//
// Exit codes: 0 success (or in sync with --check), 1 generated files are
// stale (--check), 2 the specs have errors or files could not be written.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <cstdio>

#include "check/limits.h"
#include "compiler.h"
#include "emit/spec_scaffold.h"
#include "support/diagnostic_formats.h"
#include "support/file_set.h"

namespace {

constexpr int kExitStale = 1;
constexpr int kExitError = 2;

// What the command line asked for; each mode below reads what it needs.
struct Options {
  std::vector<std::string> specs;
  std::string out_dir = "generated";
  std::string steps_dir = "workflows";
  bool quiet = false;
  bool prune = false;
  novacat::DiagnosticFormat format = novacat::DiagnosticFormat::kText;
};

void Print(std::FILE* to, const std::string& text) {
  std::fputs(text.c_str(), to);
}

// Prints the run's diagnostics, and the `stale` files --check found, in the
// chosen format: text on stderr, the machine formats on stdout.
void ReportDiagnostics(const Options& o, const novacat::DiagnosticSink& sink,
                       const novacat::CheckReport* stale) {
  if (o.format == novacat::DiagnosticFormat::kText) {
    Print(stderr, sink.FormatAll());
    return;
  }
  std::vector<novacat::Diagnostic> all = sink.diagnostics();
  if (stale) {
    for (const auto& [path, what] : stale->findings) {
      novacat::Diagnostic d;
      d.location.file = o.out_dir + "/" + path;
      d.rule = "stale-file";
      d.message = fmt::format("{}/{} is {}; run novacat-gen {} to regenerate",
                              o.out_dir, path, what, fmt::join(o.specs, " "));
      all.push_back(d);
    }
  }
  Print(stdout, novacat::FormatDiagnostics(all, o.format, NOVACAT_VERSION));
}

// novacat-gen new WORKFLOW: the smallest spec that compiles, never over a
// file.
int RunNew(const std::string& specs_dir, const std::string& workflow) {
  const std::string problem = novacat::WriteNewSpec(specs_dir, workflow);
  if (!problem.empty()) {
    Print(stderr, fmt::format("novacat-gen new: {}\n", problem));
    return kExitError;
  }
  Print(stderr, fmt::format("created {}/{}.yaml; next: novacat-gen {}/*.yaml, "
                            "then fill in the step logic it scaffolds\n",
                            specs_dir, workflow, specs_dir));
  return 0;
}

// --explain: each workflow's worst-case duration and its path; writes
// nothing.
int RunExplain(const Options& o) {
  novacat::DiagnosticSink sink;
  auto loaded = novacat::LoadAndCheck(o.specs, novacat::DiskFileReader(), sink);
  Print(stderr, sink.FormatAll());
  if (sink.has_errors()) return kExitError;
  for (const auto& spec : loaded) {
    const novacat::WorstCase w = novacat::ComputeWorstCase(*spec);
    Print(stdout,
          fmt::format("{} ({}): worst case {}{}, of which retry waits {}\n"
                      "  path: {}\n",
                      spec->workflow, spec->type,
                      novacat::FormatSeconds(w.seconds),
                      w.bounded ? "" : " (unbounded: the graph has a cycle)",
                      novacat::FormatSeconds(w.retry_seconds),
                      fmt::join(w.path, " -> ")));
  }
  return 0;
}

// --check: generates in memory and compares with the output folder; writes
// nothing.
int RunCheck(const Options& o) {
  novacat::DiagnosticSink sink;
  const std::optional<novacat::FileSet> files =
      novacat::Compile(o.specs, novacat::DiskFileReader(), sink, o.out_dir,
                       novacat::Scaffolds::kSkip);
  if (!files) {
    ReportDiagnostics(o, sink, nullptr);
    return kExitError;
  }
  const novacat::CheckReport report = novacat::CheckFiles(*files, o.out_dir);
  ReportDiagnostics(o, sink, &report);
  if (o.format == novacat::DiagnosticFormat::kText) Print(stdout, report.diff);
  if (report.stale > 0) {
    Print(stderr, fmt::format("{} generated file{} out of date in {}; run "
                              "novacat-gen {} to regenerate\n",
                              report.stale, report.stale == 1 ? " is" : "s are",
                              o.out_dir, fmt::join(o.specs, " ")));
    return kExitStale;
  }
  if (!o.quiet) {
    // The manifest is compared too.
    const size_t compared = files->files().size() + 1;
    Print(stderr, fmt::format("{} files in {} are in sync with {} spec{}\n",
                              compared, o.out_dir, o.specs.size(),
                              o.specs.size() == 1 ? "" : "s"));
  }
  return 0;
}

// The default mode: generates into the output folder and scaffolds the
// step logic that is missing.
int RunGenerate(const Options& o) {
  novacat::DiagnosticSink sink;
  std::optional<novacat::FileSet> files =
      novacat::Compile(o.specs, novacat::DiskFileReader(), sink, o.out_dir,
                       novacat::Scaffolds::kMake);
  ReportDiagnostics(o, sink, nullptr);
  if (!files) return kExitError;
  // The stack deploys every workflow of the output folder: a run given only
  // some of them leaves it as it is (--check still compares it).
  if (!o.prune) {
    const std::vector<std::string> missing =
        novacat::WorkflowsNotGiven(*files, o.out_dir);
    if (!missing.empty()) {
      for (const auto& p : files->DropWholeSet())
        Print(stderr, fmt::format("note: {}/{} not rewritten: it also deploys "
                                  "{}; pass every spec (or --prune)\n",
                                  o.out_dir, p, fmt::join(missing, ", ")));
    }
  }
  const novacat::SyncReport report =
      novacat::WriteFiles(*files, o.out_dir, o.prune);
  for (const auto& e : report.errors)
    Print(stderr, fmt::format("novacat-gen: error: {}\n", e));
  if (!report.errors.empty()) return kExitError;
  std::vector<std::string> scaffold_errors;
  const std::vector<std::string> scaffolded =
      novacat::WriteScaffolds(*files, o.steps_dir, &scaffold_errors);
  for (const auto& e : scaffold_errors)
    Print(stderr, fmt::format("novacat-gen: error: {}\n", e));
  if (!scaffold_errors.empty()) return kExitError;
  if (o.quiet) return 0;
  for (const auto& p : scaffolded)
    Print(stderr,
          fmt::format("created {}/{} (yours from now on)\n", o.steps_dir, p));
  for (const auto& p : report.written)
    Print(stderr, fmt::format("wrote {}/{}\n", o.out_dir, p));
  for (const auto& p : report.removed)
    Print(stderr, fmt::format("removed {}/{}\n", o.out_dir, p));
  Print(stderr, fmt::format("{} written, {} unchanged, {} removed\n",
                            report.written.size(), report.unchanged.size(),
                            report.removed.size()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "novacat-gen compiles Nova Cat workflow specs (YAML) into Step "
      "Functions definitions and the other artifacts under the output "
      "folder.\n\nExit status: 0 ok; 1 --check found stale files; 2 the specs "
      "have errors (nothing is written) or writing failed."};
  app.name("novacat-gen");
  Options o;
  bool check = false;
  app.add_option("SPEC", o.specs, "Workflow spec files (e.g. specs/*.yaml)")
      ->check(CLI::ExistingFile);
  app.add_option("-o,--out", o.out_dir, "Output folder")->capture_default_str();
  app.add_flag("--check", check,
               "Write nothing; print a unified diff of every stale, missing "
               "or orphaned file and exit 1 when anything differs");
  // --check kept a record of what it found in sync, which these two
  // governed; it compares every file now, and they do nothing. Accepted
  // for one release, so that scripts passing them keep working.
  bool no_cache = false;
  app.add_flag("--no-cache", no_cache,
               "No effect (--check compares every file); to be removed");
  std::string cache_dir;
  app.add_option("--cache-dir", cache_dir,
                 "No effect (--check keeps no record); to be removed");
  app.add_option("--steps-dir", o.steps_dir,
                 "Folder of the hand-written step logic; a workflow's "
                 "steps.hpp/steps.cpp are created there once, when missing, "
                 "and never touched again")
      ->capture_default_str();
  bool explain = false;
  app.add_flag("--explain", explain,
               "Print each workflow's worst-case duration and the path that "
               "takes it (and write nothing)");
  app.add_flag("--prune", o.prune,
               "Also delete the generated files of workflows not given (their "
               "spec was removed); without it only the given workflows' "
               "files are touched");
  app.add_flag("-q,--quiet", o.quiet, "Print only diagnostics and diffs");
  std::string format_name = "text";
  app.add_option("--format", format_name,
                 "How to print diagnostics (and --check's stale files): text "
                 "(stderr), or on stdout json (one object per line), github "
                 "(GitHub Actions annotations) or sarif (SARIF 2.1.0)")
      ->check(CLI::IsMember({"text", "json", "github", "sarif"}))
      ->capture_default_str();
  app.set_version_flag("--version",
                       std::string("novacat-gen ") + NOVACAT_VERSION);
  CLI::App* create = app.add_subcommand(
      "new",
      "Write the smallest spec of a new workflow that compiles as it is, "
      "<specs-dir>/<WORKFLOW>.yaml; never over an existing file");
  std::string new_workflow;
  create->add_option("WORKFLOW", new_workflow, "snake_case workflow name")
      ->required();
  std::string specs_dir = "specs";
  create->add_option("--specs-dir", specs_dir, "Folder of the specs")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (create->parsed()) return RunNew(specs_dir, new_workflow);
  if (o.specs.empty()) {
    // What CLI11 says of a required positional, with its exit status.
    Print(stderr, "SPEC is required\nRun with --help for more information.\n");
    return static_cast<int>(CLI::ExitCodes::RequiredError);
  }
  o.format = *novacat::ParseDiagnosticFormat(format_name);
  if (no_cache || !cache_dir.empty())
    Print(stderr, fmt::format("note: {} has no effect: --check compares every "
                              "file; it will be removed\n",
                              no_cache ? "--no-cache" : "--cache-dir"));
  if (explain) return RunExplain(o);
  if (check) return RunCheck(o);
  return RunGenerate(o);
}
