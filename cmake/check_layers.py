#!/usr/bin/env python3
"""The codemap's dependency rules (ARCHITECTURE.md, "may depend on"), checked
by every build (target novacat_layers) and by ctest `layers`.

Every project header a source file includes is resolved to the file it
names, and both files to their module by path (MODULES, first match wins);
an include of a module the includer may not depend on (MAY_INCLUDE) is
reported as file:line:col with both modules, and the check fails. Headers of
third-party libraries (<...>) are the CMake targets' business, not this
check's. Usage: check_layers.py [ROOT] [STAMP] (ROOT defaults to the repository
holding this file; STAMP, a file written only when the check passes, is
for the build's dependency tracking).
"""
import os
import re
import sys

# (path prefix, module): a file's module is the first prefix it starts with.
MODULES = [
    ("generator/support/", "gen.support"),
    ("generator/model/", "gen.model"),
    ("generator/load/", "gen.load"),
    ("generator/check/", "gen.check"),
    ("generator/emit/", "gen.emit"),
    ("generator/tests/", "test"),
    ("generator/", "gen.compiler"),  # compiler.h/.cc, cli/
    ("vocabulary/", "vocabulary"),
    ("runtime/include/novacat/runtime/asl/", "executor"),
    ("runtime/src/asl/", "executor"),
    ("runtime/include/novacat/runtime/testing/", "testing"),
    ("runtime/src/testing/", "testing"),
    ("runtime/include/novacat/runtime/", "runtime"),
    ("runtime/include/novacat/store/", "store"),
    ("runtime/src/store/", "store"),
    ("runtime/include/novacat/aws/", "aws"),
    ("runtime/src/aws/", "aws"),
    ("runtime/src/curl_headers.h", "aws"),
    ("runtime/include/novacat/lambda/", "lambda"),
    ("runtime/src/lambda/", "lambda"),
    ("runtime/tests/", "test"),
    ("runtime/src/", "runtime"),
    ("workflows/domain/fixtures/tests/", "test"),
    ("workflows/domain/fixtures/", "domain.fixtures"),
    ("workflows/domain/tests/", "test"),
    ("workflows/domain/", "domain"),
    ("workflows/fits/tests/", "test"),
    ("workflows/fits/", "fits"),
    ("workflows/transfer/tests/", "test"),
    ("workflows/transfer/", "transfer"),
    ("workflows/sources/tests/", "test"),
    ("workflows/sources/", "sources"),
    ("workflows/common/", "workflows.common"),
    ("workflows/app/", "app"),
    ("workflows/", "steps"),  # workflows/<workflow>/
    ("cmake/lambda_main.cc", "lambda_main"),
    ("cmake/", "test"),  # conformance_main.cc
    ("tests/", "test"),
    ("bench/", "test"),
    ("fuzz/", "test"),
]

# What each module may include besides itself ("*": anything).
MAY_INCLUDE = {
    "gen.support": set(),
    "gen.model": {"gen.support", "vocabulary"},
    "gen.load": {"gen.model", "gen.support", "vocabulary"},
    "gen.check": {"gen.model", "gen.support", "vocabulary"},
    "gen.emit": {"gen.model", "gen.support", "gen.check", "vocabulary"},
    "gen.compiler": {"gen.support", "gen.model", "gen.load", "gen.check",
                     "gen.emit", "vocabulary"},
    "vocabulary": set(),
    "runtime": {"vocabulary"},
    "executor": {"runtime", "vocabulary"},
    "store": {"runtime", "aws", "vocabulary"},
    "aws": {"runtime", "vocabulary"},
    "lambda": {"runtime", "store", "aws", "vocabulary"},
    "testing": {"executor", "runtime", "store", "vocabulary"},
    # The domain is pure: no runtime, no store, no I/O library of ours.
    "domain": set(),
    "domain.fixtures": {"domain", "runtime", "vocabulary"},
    # FITS files (cfitsio): spectra and photometry tables read and checked;
    # a result, never a Step Functions class.
    "fits": {"domain"},
    # Bytes moved: downloads (libcurl) and object stores (a folder, S3).
    "transfer": {"domain", "runtime", "aws", "vocabulary"},
    # The public archives' clients (libcurl, pugixml): the domain's
    # interfaces over HTTP, the recorded answers' replay server; the AWS
    # clients for the secrets they read.
    "sources": {"domain", "runtime", "aws", "vocabulary"},
    "workflows.common": {"domain", "fits", "transfer", "sources", "store",
                         "runtime", "vocabulary"},
    # Step logic: its generated code, the Environment, the domain, FITS
    # reading, the store and the runtime; never the executor, the AWS
    # clients, the transfer implementations or test code.
    "steps": {"generated", "workflows.common", "domain", "fits", "transfer",
              "store", "runtime", "vocabulary"},
    # Every workflow's Lambda main: no executor, no test runner.
    "lambda_main": {"lambda", "runtime", "store", "workflows.common", "steps",
                    "generated", "fits", "transfer", "sources", "vocabulary"},
    "app": "*",
    "test": "*",
}

# Where a quoted include is looked for, after the includer's own folder.
INCLUDE_ROOTS = [
    "generator",
    "vocabulary/include",
    "runtime/include",
    "runtime/src",
    "runtime/tests/support",
    "workflows/domain/include",
    "workflows/domain/fixtures/include",
    "workflows/domain/src",  # its message helpers, which the fixtures share
    "workflows/common/include",
    "workflows/fits/include",
    "workflows/transfer/include",
    "workflows/sources/include",
    "workflows",
]

SOURCE_SUFFIXES = (".cc", ".h", ".cpp", ".hpp")
SKIPPED = ("build", "generated", "tests/tools", ".git", "docs", "specs",
           "fixtures", "templates")
INCLUDE = re.compile(r'^(\s*#\s*include\s+)"([^"]+)"', re.M)


def module_of(path):
    if re.search(r"_test\.(cc|cpp)$", path):  # a test beside its code
        return "test"
    for prefix, module in MODULES:
        if path.startswith(prefix):
            return module
    return None


def resolve(root, includer, name):
    """The included file's repository path, or None (generated code)."""
    for folder in [os.path.dirname(includer)] + INCLUDE_ROOTS:
        candidate = os.path.normpath(os.path.join(folder, name))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def violations(root):
    found = []
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        dirs[:] = sorted(d for d in dirs
                         if os.path.normpath(os.path.join(rel_folder, d))
                         not in SKIPPED and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.normpath(os.path.join(rel_folder, name))
            module = module_of(path)
            allowed = MAY_INCLUDE.get(module, set())
            if allowed == "*":
                continue
            text = open(os.path.join(root, path), encoding="utf-8").read()
            for match in INCLUDE.finditer(text):
                included = resolve(root, path, match.group(2))
                # Not in the tree: the generated code of a workflow.
                target = module_of(included) if included else "generated"
                if target == module or target in allowed:
                    continue
                line = text.count("\n", 0, match.start()) + 1
                col = len(match.group(1)) + 1
                found.append(
                    f"{path}:{line}:{col}: {module} may not include "
                    f"{target} (\"{match.group(2)}\")")
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    found = violations(root)
    for line in found:
        print(line)
    if found:
        print(f"FAIL: {len(found)} include(s) against the codemap "
              "(cmake/check_layers.py, ARCHITECTURE.md)")
        return 1
    if len(sys.argv) > 2:
        open(sys.argv[2], "w").close()
    else:
        print("ok: every project include follows the codemap")
    return 0


if __name__ == "__main__":
    sys.exit(main())
