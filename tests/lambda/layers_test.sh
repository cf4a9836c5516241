#!/usr/bin/env bash
# A workflow's Lambda binary links what runs in Lambda and nothing else.
# The CMake targets make a wrong dependency a link error (novacat_lambda_*
# links no novacat_executor, novacat_testing or novacat_store_sqlite); this
# checks the result: the symbols that must be there are (the archives' real
# clients among them), the others not (the replay server of the recorded
# answers, the fixture clients).
#   layers_test.sh BINARY
set -euo pipefail
binary="$1"
symbols=$(nm -C "$binary")
status=0
for required in 'novacat::lambda::RunLoop' 'novacat::runtime::HandleInvocation' \
    'novacat::store::DynamoDbTable::DynamoDbTable' \
    'novacat::aws::EventBridgeBus::Publish' \
    'novacat::sources::SimbadTap::Identify' 'novacat::sources::Ads::Fetch'; do
  if ! grep -qF "$required" <<<"$symbols"; then
    echo "missing from $binary: $required" >&2
    status=1
  fi
done
for forbidden in 'novacat::runtime::asl::' 'testing::Test' \
    'novacat::store::SqliteTable' 'sqlite3_' 'novacat::workflows::FixtureWorld' \
    'novacat::workflows::LocalRunner' 'novacat::sources::ReplayServer' \
    'httplib::' 'novacat::domain::FixtureResolver'; do
  if found=$(grep -F "$forbidden" <<<"$symbols" | head -3) && [ -n "$found" ]; then
    echo "$binary links what Lambda must not run ($forbidden):" >&2
    echo "$found" >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "$binary: layers hold"
exit $status
