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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "novacat-gen compiles Nova Cat workflow specs (YAML) into Step "
      "Functions definitions and the other artifacts under the output "
      "folder.\n\nExit status: 0 ok; 1 --check found stale files; 2 the specs "
      "have errors (nothing is written) or writing failed."};
  app.name("novacat-gen");
  std::vector<std::string> specs;
  std::string out_dir = "generated";
  bool check = false;
  bool quiet = false;
  app.add_option("SPEC", specs, "Workflow spec files (e.g. specs/*.yaml)")
      ->check(CLI::ExistingFile);
  app.add_option("-o,--out", out_dir, "Output folder")->capture_default_str();
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
  std::string steps_dir = "workflows";
  app.add_option("--steps-dir", steps_dir,
                 "Folder of the hand-written step logic; a workflow's "
                 "steps.hpp/steps.cpp are created there once, when missing, "
                 "and never touched again")
      ->capture_default_str();
  bool explain = false;
  app.add_flag("--explain", explain,
               "Print each workflow's worst-case duration and the path that "
               "takes it (and write nothing)");
  bool prune = false;
  app.add_flag("--prune", prune,
               "Also delete the generated files of workflows not given (their "
               "spec was removed); without it only the given workflows' "
               "files are touched");
  app.add_flag("-q,--quiet", quiet, "Print only diagnostics and diffs");
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
  if (create->parsed()) {
    std::string problem = novacat::WriteNewSpec(specs_dir, new_workflow);
    if (!problem.empty()) {
      std::fputs(fmt::format("novacat-gen new: {}\n", problem).c_str(), stderr);
      return kExitError;
    }
    std::fputs(fmt::format("created {}/{}.yaml; next: novacat-gen {}/*.yaml, "
                           "then fill in the step logic it scaffolds\n",
                           specs_dir, new_workflow, specs_dir)
                   .c_str(),
               stderr);
    return 0;
  }
  if (specs.empty()) {
    // What CLI11 says of a required positional, with its exit status.
    std::fputs("SPEC is required\nRun with --help for more information.\n",
               stderr);
    return static_cast<int>(CLI::ExitCodes::RequiredError);
  }

  const novacat::DiagnosticFormat format =
      *novacat::ParseDiagnosticFormat(format_name);
  // Prints the run's diagnostics, and `stale` files found by --check, in
  // the chosen format.
  auto report_diagnostics = [&](const novacat::DiagnosticSink& sink,
                                const novacat::CheckReport* stale) {
    if (format == novacat::DiagnosticFormat::kText) {
      std::fputs(sink.FormatAll().c_str(), stderr);
      return;
    }
    std::vector<novacat::Diagnostic> all = sink.diagnostics();
    if (stale) {
      for (const auto& [path, what] : stale->findings) {
        novacat::Diagnostic d;
        d.location.file = out_dir + "/" + path;
        d.rule = "stale-file";
        d.message = fmt::format(
            "{}/{} is {}; run novacat-gen {} to "
            "regenerate",
            out_dir, path, what, fmt::join(specs, " "));
        all.push_back(d);
      }
    }
    std::fputs(novacat::FormatDiagnostics(all, format, NOVACAT_VERSION).c_str(),
               stdout);
  };

  auto report_in_sync = [&](size_t compared) {
    std::fputs(
        fmt::format("{} files in {} are in sync with {} spec{}\n", compared,
                    out_dir, specs.size(), specs.size() == 1 ? "" : "s")
            .c_str(),
        stderr);
  };

  if (no_cache || !cache_dir.empty())
    std::fputs(fmt::format("note: {} has no effect: --check compares every "
                           "file; it will be removed\n",
                           no_cache ? "--no-cache" : "--cache-dir")
                   .c_str(),
               stderr);

  novacat::DiagnosticSink sink;
  if (explain) {
    auto loaded = novacat::LoadAndCheck(specs, novacat::DiskFileReader(), sink);
    std::fputs(sink.FormatAll().c_str(), stderr);
    if (sink.has_errors()) return kExitError;
    for (const auto& spec : loaded) {
      novacat::WorstCase w = novacat::ComputeWorstCase(*spec);
      std::string path;
      for (const auto& p : w.path) path += (path.empty() ? "" : " -> ") + p;
      std::fputs(
          fmt::format("{} ({}): worst case {}{}, of which retry waits {}\n"
                      "  path: {}\n",
                      spec->workflow, spec->type,
                      novacat::FormatSeconds(w.seconds),
                      w.bounded ? "" : " (unbounded: the graph has a cycle)",
                      novacat::FormatSeconds(w.retry_seconds), path)
              .c_str(),
          stdout);
    }
    return 0;
  }
  std::optional<novacat::FileSet> files = novacat::Compile(
      specs, novacat::DiskFileReader(), sink, out_dir,
      check ? novacat::Scaffolds::kSkip : novacat::Scaffolds::kMake);
  if (!files || !check) report_diagnostics(sink, nullptr);
  if (!files) return kExitError;

  if (check) {
    novacat::CheckReport report = novacat::CheckFiles(*files, out_dir);
    report_diagnostics(sink, &report);
    if (format == novacat::DiagnosticFormat::kText)
      std::fputs(report.diff.c_str(), stdout);
    if (report.stale > 0) {
      std::fputs(fmt::format("{} generated file{} out of date in {}; run "
                             "novacat-gen {} to regenerate\n",
                             report.stale, report.stale == 1 ? " is" : "s are",
                             out_dir, fmt::join(specs, " "))
                     .c_str(),
                 stderr);
      return kExitStale;
    }
    if (!quiet) report_in_sync(files->files().size() + 1);
    return 0;
  }

  // The stack deploys every workflow of the output folder: a run given only
  // some of them leaves it as it is (--check still compares it).
  if (!prune) {
    std::vector<std::string> missing =
        novacat::WorkflowsNotGiven(*files, out_dir);
    if (!missing.empty()) {
      for (const auto& p : files->DropWholeSet())
        std::fputs(fmt::format("note: {}/{} not rewritten: it also deploys "
                               "{}; pass every spec (or --prune)\n",
                               out_dir, p, fmt::join(missing, ", "))
                       .c_str(),
                   stderr);
    }
  }
  novacat::SyncReport report = novacat::WriteFiles(*files, out_dir, prune);
  for (const auto& e : report.errors) {
    std::fputs(fmt::format("novacat-gen: error: {}\n", e).c_str(), stderr);
  }
  if (!report.errors.empty()) return kExitError;
  std::vector<std::string> scaffold_errors;
  std::vector<std::string> scaffolded =
      novacat::WriteScaffolds(*files, steps_dir, &scaffold_errors);
  for (const auto& e : scaffold_errors) {
    std::fputs(fmt::format("novacat-gen: error: {}\n", e).c_str(), stderr);
  }
  if (!scaffold_errors.empty()) return kExitError;
  if (!quiet) {
    for (const auto& p : scaffolded)
      std::fputs(
          fmt::format("created {}/{} (yours from now on)\n", steps_dir, p)
              .c_str(),
          stderr);
  }
  if (!quiet) {
    for (const auto& p : report.written)
      std::fputs(fmt::format("wrote {}/{}\n", out_dir, p).c_str(), stderr);
    for (const auto& p : report.removed)
      std::fputs(fmt::format("removed {}/{}\n", out_dir, p).c_str(), stderr);
    std::fputs(fmt::format("{} written, {} unchanged, {} removed\n",
                           report.written.size(), report.unchanged.size(),
                           report.removed.size())
                   .c_str(),
               stderr);
  }
  return 0;
}
