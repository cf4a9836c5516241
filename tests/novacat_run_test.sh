#!/usr/bin/env bash
# `novacat run` and `novacat seed` end to end, as a user runs them: exit
# codes, whole error messages, what is recorded for bad input, and one name
# followed through every seed workflow. Usage: novacat_run_test.sh NOVACAT
# (run from the repository root: the fixtures are read from fixtures/).
set -u
novacat=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
db=$work/cat.db

# field FILE PYTHON-EXPRESSION-ON-d: prints the value (JSON output of run).
field() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }

"$novacat" --help >"$work/help" 2>&1 || fail "--help exits non-zero"
grep -q "run" "$work/help" || fail "--help does not list run"

# seed: twice, the same result.
# The ids, which the next commands take.
seeded="seeded 2 novae into $db:
  d4bbdda3-6824-4e82-b1ce-1b781190fbec  V1500 CYG
  86cb14e8-2bf7-4bec-9837-df4287f58a01  GK PER"
expect_eq "seed" "$("$novacat" seed --db "$db")" "$seeded"
expect_eq "seed again" "$("$novacat" seed --db "$db")" "$seeded"

# An unknown workflow: exit 2, the known ones listed, nothing run. The
# known ones are the build's, one per spec in specs/ (a workflow added
# there is listed without a change here).
known=$(cd specs && ls -- *.yaml | sed 's/\.yaml$//' | LC_ALL=C sort |
  paste -sd, | sed 's/,/, /g')
"$novacat" run initialise_nova --db "$db" >"$work/out" 2>"$work/err"
expect_eq "unknown workflow exit" "$?" "2"
expect_eq "unknown workflow message" "$(cat "$work/err")" \
  "novacat run: unknown workflow 'initialise_nova' (known: $known)"
expect_eq "unknown workflow stdout" "$(cat "$work/out")" ""

# --function (a deployed Lambda) needs the function's table, and no
# --follow: exit 2, nothing run.
function_rule="novacat run: --function needs --dynamodb TABLE (the function's table, where its JobRuns are) and no --follow (the function publishes to EventBridge, where the stack's rules start the next workflows)"
"$novacat" run initialize_nova --db "$db" --function initialize_nova \
  >"$work/out" 2>"$work/err"
expect_eq "--function without --dynamodb exit" "$?" "2"
expect_eq "--function without --dynamodb message" "$(cat "$work/err")" \
  "$function_rule"
"$novacat" run initialize_nova --dynamodb NovaCat --function initialize_nova \
  --follow >"$work/out" 2>"$work/err"
expect_eq "--function with --follow exit" "$?" "2"
expect_eq "--function with --follow message" "$(cat "$work/err")" \
  "$function_rule"
expect_eq "--function refused stdout" "$(cat "$work/out")" ""

# Input that is not JSON: exit 2, and still a FAILED JobRun (TERMINAL).
"$novacat" run initialize_nova --db "$db" --input '{"candidate_name": ' \
  >"$work/bad.json" 2>"$work/err"
expect_eq "malformed input exit" "$?" "2"
expect_eq "malformed input JobRun" \
  "$(field "$work/bad.json" "d['runs'][0]['job_run']['status'], d['runs'][0]['job_run']['error_classification'], d['runs'][0]['job_run']['workflow']")" \
  "FAILED TERMINAL initialize_nova"
grep -q "^novacat run: --input is not JSON: " "$work/err" ||
  fail "malformed input message: $(cat "$work/err")"

# JSON that is not an object: the same, with the reason.
"$novacat" run initialize_nova --db "$db" --input '["V1500 Cyg"]' \
  >"$work/array.json" 2>"$work/err"
expect_eq "non-object input exit" "$?" "2"
expect_eq "non-object input message" "$(cat "$work/err")" \
  "novacat run: --input is not a JSON object: it is array"
expect_eq "non-object input JobRun" \
  "$(field "$work/array.json" "d['runs'][0]['job_run']['status']")" "FAILED"

# Input failing its schema: the run starts, fails TERMINAL at BeginJobRun,
# nothing is published; exit 1.
"$novacat" run initialize_nova --db "$db" --input '{"name": "V1500 Cyg"}' \
  >"$work/invalid.json" 2>"$work/invalid.log"
expect_eq "invalid input exit" "$?" "1"
expect_eq "invalid input run" \
  "$(field "$work/invalid.json" "d['runs'][0]['status'], d['runs'][0]['job_run']['status'], d['runs'][0]['job_run']['error_classification'], len(d['runs'][0]['events'])")" \
  "FAILED FAILED TERMINAL 0"
grep -qF '"cause":"the input event initialize_nova is invalid:\n$.candidate_name: is required\n$.name: is not a known property\n"' "$work/invalid.log" ||
  fail "invalid input: no log line with the cause"

# A missing fixtures folder: exit 2 with the reason.
"$novacat" run initialize_nova --db "$db" --fixtures "$work/none" \
  --input '{"candidate_name": "V1500 Cyg"}' >/dev/null 2>"$work/err"
expect_eq "missing fixtures exit" "$?" "2"
expect_eq "missing fixtures message" "$(cat "$work/err")" \
  "novacat run: fixtures folder $work/none not found (give --fixtures DIR or NOVACAT_FIXTURES)"

# Started anywhere: the fixtures of the checkout the binary is in. A binary
# outside any checkout, started outside one, says which flag to give.
(cd "$work" && "$novacat" seed --db "$work/elsewhere.db" >"$work/out" 2>"$work/err")
expect_eq "elsewhere seed" "$(head -1 "$work/out")$(cat "$work/err")" \
  "seeded 2 novae into $work/elsewhere.db:"
cp "$novacat" "$work/novacat-copy"
(cd "$work" && ./novacat-copy seed --db "$work/elsewhere.db" >/dev/null 2>"$work/err")
expect_eq "no fixtures exit" "$?" "2"
expect_eq "no fixtures message" "$(cat "$work/err")" \
  "novacat seed: no fixtures folder found (looked for fixtures/novae/existing.json in the working folder, its parents and beside the novacat binary); give --fixtures DIR or set NOVACAT_FIXTURES"
(cd "$work" && NOVACAT_FIXTURES="$OLDPWD/fixtures" ./novacat-copy seed \
  --db "$work/elsewhere.db" >"$work/out" 2>&1)
expect_eq "NOVACAT_FIXTURES seed" "$(head -1 "$work/out")" "seeded 2 novae into $work/elsewhere.db:"

# One name through every workflow; the logs are JSON lines on stderr.
"$novacat" run initialize_nova --db "$db" --follow --verbose \
  --input '{"candidate_name": "V1500 Cygni"}' >"$work/follow.json" \
  2>"$work/follow.log"
expect_eq "follow exit" "$?" "0"
expect_eq "follow chain" \
  "$(field "$work/follow.json" "' '.join(r['workflow'] + ':' + str(r.get('outcome')) for r in d['runs'])")" \
  "initialize_nova:EXISTS_AND_LAUNCHED ingest_new_nova:LAUNCHED refresh_references:REFRESHED discover_spectra_products:DISCOVERED download_and_validate_spectra:VALIDATED"
# The downloads of the products the recorded archives answer for V1500 Cyg
# (fixtures/archives/): ESO's two UVES spectra and MAST's two IUE spectra,
# all VALID, their files in the object folder beside the database.
expect_eq "downloads" \
  "$(field "$work/follow.json" "[(k, d['runs'][4]['events'][0]['detail'][k]) for k in ('valid_count', 'quarantined_count', 'failed_count', 'skipped_count')]")" \
  "[('valid_count', 4), ('quarantined_count', 0), ('failed_count', 0), ('skipped_count', 0)]"
expect_eq "downloaded files" \
  "$(cd "$work/cat.db.objects" && find . -type f | sed 's|/[0-9a-f]*\.fits$||' | sort)" \
  "./novacat-local/raw/d4bbdda3-6824-4e82-b1ce-1b781190fbec/326baf4c-1981-5d3e-a9c2-55908a6c93b6
./novacat-local/raw/d4bbdda3-6824-4e82-b1ce-1b781190fbec/475cb1a5-dbc4-5b30-b5e2-fabfd76e9d50
./novacat-local/raw/d4bbdda3-6824-4e82-b1ce-1b781190fbec/7f45e844-3d27-5d6c-a36b-e3f21dbd146f
./novacat-local/raw/d4bbdda3-6824-4e82-b1ce-1b781190fbec/972ca194-26e0-5628-91be-4579aac67555"
expect_eq "one correlation id" \
  "$(field "$work/follow.json" "len({r['job_run']['correlation_id'] for r in d['runs']})")" "1"
expect_eq "history with --verbose" \
  "$(field "$work/follow.json" "d['runs'][0]['history'][0]['type']")" "ExecutionStarted"
python3 - "$work/follow.log" <<'PY' || fail "log lines are not JSON with the required fields"
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    for f in ("ts", "level", "message", "workflow_name", "execution_arn",
              "job_run_id", "state_name", "attempt_number", "correlation_id"):
        assert f in d, (f, line)
PY

# What the store recorded of it: `novacat jobs`. The nova's runs in SK
# (job_run_id) order, initialize_nova's among them (started without a
# nova_id, it is listed under the nova it created when it ends), and found by
# its id alone, with its Attempts.
v1500=d4bbdda3-6824-4e82-b1ce-1b781190fbec
"$novacat" jobs --nova $v1500 --db "$db" --format json >"$work/jobs.json" 2>"$work/err"
expect_eq "jobs exit" "$?" "0"
expect_eq "jobs runs" \
  "$(field "$work/jobs.json" "sorted((r['workflow'], r['status'], r['outcome'], r['duration_ms'] >= 0) for r in d['job_runs']), [r['job_run_id'] for r in d['job_runs']] == sorted(r['job_run_id'] for r in d['job_runs'])")" \
  "[('discover_spectra_products', 'SUCCEEDED', 'DISCOVERED', True), ('download_and_validate_spectra', 'SUCCEEDED', 'VALIDATED', True), ('ingest_new_nova', 'SUCCEEDED', 'LAUNCHED', True), ('initialize_nova', 'SUCCEEDED', 'EXISTS_AND_LAUNCHED', True), ('refresh_references', 'SUCCEEDED', 'REFRESHED', True)] True"
"$novacat" jobs --nova $v1500 --db "$db" >"$work/jobs.txt"
expect_eq "jobs table head" "$(head -2 "$work/jobs.txt")" \
  "JobRuns of nova $v1500: 5
JOB_RUN_ID                            WORKFLOW                       STATUS     RESULT               STARTED               ENDED                 DURATION"
init_run=$(field "$work/follow.json" "d['runs'][0]['job_run']['job_run_id']")
"$novacat" jobs --run "$init_run" --db "$db" >"$work/run.txt"
expect_eq "jobs --run" \
  "$(sed -n '1p;5,$p' "$work/run.txt" |
    awk '/^(JobRun|Attempts) / {print; next} {print $1, $2, $3, $4}')" \
  "JobRun $init_run
Attempts of $init_run (initialize_nova): 6
STATE ITEM ATTEMPT STATUS
AcquireIdempotencyLock - 1 SUCCEEDED
BeginJobRun - 1 SUCCEEDED
CheckExistingNovaByName - 1 SUCCEEDED
FinalizeJobRunSuccess - 1 SUCCEEDED
NormalizeCandidateName - 1 SUCCEEDED
PublishIngestNewNova - 1 SUCCEEDED"
# Not found, not a UUID, no database: exit 2, what is missing named; a
# read creates no database.
"$novacat" jobs --nova 86cb14e8-2bf7-4bec-9837-df4287f58a01 --db "$db" >"$work/out" 2>"$work/err"
expect_eq "jobs unknown nova" "$?:$(cat "$work/out")$(cat "$work/err")" \
  "2:novacat jobs: no JobRuns of nova 86cb14e8-2bf7-4bec-9837-df4287f58a01 in $db (a run started without a nova_id, as initialize_nova's, is found by --run JOB_RUN_ID)"
"$novacat" jobs --nova "V1500 Cyg" --db "$db" >"$work/out" 2>"$work/err"
expect_eq "jobs not a UUID" "$?:$(cat "$work/err")" \
  "2:novacat jobs: --nova 'V1500 Cyg' is not a nova id (a UUID)"
"$novacat" jobs --nova $v1500 --db "$work/none.db" >"$work/out" 2>"$work/err"
expect_eq "jobs no database" "$?:$(cat "$work/err")" \
  "2:novacat jobs: database $work/none.db not found (novacat run and novacat seed create it; give --db PATH or --dynamodb TABLE)"
[ -e "$work/none.db" ] && fail "jobs created $work/none.db"

# The nova's datasets after the chain (`novacat datasets list`); then GK
# Per's, whose recorded products (ESO's after two 503s, MAST's after one)
# are QUARANTINED (NaN flux, a wrong DATASUM), and one requeued after
# review: READY and eligible; a COMPLETED one is refused.
"$novacat" datasets list --nova $v1500 --db "$db" >"$work/ds.txt" 2>"$work/err"
expect_eq "datasets list" \
  "$?:$(awk '{NF = (NR == 1 ? NF : NF - 1); print}' "$work/ds.txt")" \
  "0:Datasets of nova $v1500: 4
DATASET_ID TYPE PROVIDER PROCESSING VALIDATION REASON FAILED_RUNS ELIGIBLE
326baf4c-1981-5d3e-a9c2-55908a6c93b6 SPECTRA ESO COMPLETED VALID - - -
475cb1a5-dbc4-5b30-b5e2-fabfd76e9d50 SPECTRA ESO COMPLETED VALID - - -
7f45e844-3d27-5d6c-a36b-e3f21dbd146f SPECTRA MAST COMPLETED VALID - - -
972ca194-26e0-5628-91be-4579aac67555 SPECTRA MAST COMPLETED VALID - - -"
gkper=86cb14e8-2bf7-4bec-9837-df4287f58a01
"$novacat" run discover_spectra_products --db "$db" --follow \
  --input "{\"nova_id\": \"$gkper\"}" >"$work/gkper.json" 2>"$work/err"
expect_eq "GK Per discovery" \
  "$?:$(field "$work/gkper.json" "' '.join(r['workflow'] + ':' + str(r.get('outcome')) for r in d['runs'])")" \
  "0:discover_spectra_products:DISCOVERED download_and_validate_spectra:VALIDATED"
"$novacat" datasets list --nova $gkper --db "$db" >"$work/ds.txt" 2>"$work/err"
expect_eq "GK Per datasets" \
  "$?:$(awk '{NF = (NR == 1 ? NF : NF - 1); print}' "$work/ds.txt")" \
  "0:Datasets of nova $gkper: 2
DATASET_ID TYPE PROVIDER PROCESSING VALIDATION REASON FAILED_RUNS ELIGIBLE
8e56017e-4bfc-5c66-85bc-a9651d8fe6d3 SPECTRA ESO QUARANTINED QUARANTINED NON_FINITE_FLUX - -
2f42fbc0-5ae0-5a90-b33e-d77da225ad4e SPECTRA MAST QUARANTINED QUARANTINED FITS_CHECKSUM_MISMATCH - -"
"$novacat" datasets requeue --nova $gkper \
  --dataset 2f42fbc0-5ae0-5a90-b33e-d77da225ad4e --db "$db" >"$work/out" 2>"$work/err"
expect_eq "datasets requeue" "$?:$(cat "$work/out")$(cat "$work/err")" \
  "0:requeued dataset 2f42fbc0-5ae0-5a90-b33e-d77da225ad4e (SPECTRA, MAST) of nova $gkper: QUARANTINED FITS_CHECKSUM_MISMATCH -> READY, download-eligible"
"$novacat" datasets list --nova $gkper --db "$db" --format json >"$work/ds.json"
expect_eq "requeued dataset" \
  "$(field "$work/ds.json" "[(x['processing_status'], x['eligibility']) for x in d['datasets'] if x['dataset_id'].startswith('2f42fbc0')]")" \
  "[('READY', 'DOWNLOAD')]"
"$novacat" datasets requeue --nova $v1500 \
  --dataset 326baf4c-1981-5d3e-a9c2-55908a6c93b6 --db "$db" >"$work/out" 2>"$work/err"
expect_eq "datasets requeue refused" "$?:$(cat "$work/out")$(cat "$work/err")" \
  "2:novacat datasets requeue: dataset 326baf4c-1981-5d3e-a9c2-55908a6c93b6 of nova $v1500 is COMPLETED: only a QUARANTINED, FAILED_TERMINAL or FAILED_RETRYABLE dataset, or one whose lease expired, is requeued"
"$novacat" datasets requeue --nova $v1500 --dataset lwr01642 --db "$db" >"$work/out" 2>"$work/err"
expect_eq "datasets requeue not a UUID" "$?:$(cat "$work/err")" \
  "2:novacat datasets requeue: --dataset 'lwr01642' is not a dataset id (a UUID)"
"$novacat" datasets list --nova $v1500 --db "$work/none.db" >"$work/out" 2>"$work/err"
expect_eq "datasets no database" "$?:$(cat "$work/err")" \
  "2:novacat datasets list: database $work/none.db not found (novacat run and novacat seed create it; give --db PATH or --dynamodb TABLE)"
[ -e "$work/none.db" ] && fail "datasets list created $work/none.db"

# The same name again the same day: a duplicate, nothing launched.
"$novacat" run initialize_nova --db "$db" --follow \
  --input '{"candidate_name": "V1500 Cyg"}' >"$work/again.json" 2>/dev/null
expect_eq "duplicate" \
  "$(field "$work/again.json" "[(r['workflow'], r['outcome'], len(r['events'])) for r in d['runs']]")" \
  "[('initialize_nova', 'DUPLICATE_SKIPPED', 0)]"

# The per-nova schedule, locally: refresh_references once per nova, in
# nova_id order. V1500 Cyg's refresh ran today (above): a duplicate.
"$novacat" run refresh_references --db "$db" --for-each-nova \
  >"$work/each.json" 2>"$work/each.log"
expect_eq "for-each-nova exit" "$?" "0"
expect_eq "for-each-nova runs" \
  "$(field "$work/each.json" "[(r['job_run']['nova_id'], r['outcome']) for r in d['runs']]")" \
  "[('86cb14e8-2bf7-4bec-9837-df4287f58a01', 'REFRESHED'), ('d4bbdda3-6824-4e82-b1ce-1b781190fbec', 'DUPLICATE_SKIPPED')]"
expect_eq "for-each-nova log line" \
  "$(head -1 "$work/each.log" | python3 -c "import json,sys; d=json.load(sys.stdin); d.pop('ts'); print(json.dumps(d))")" \
  '{"level": "INFO", "message": "published one input event per nova", "workflow_name": "refresh_references", "event": "refresh_references", "published": 2}'
# An input no per-nova event can take: every nova named, nothing run.
"$novacat" run refresh_references --db "$db" --for-each-nova \
  --input '{"correlation_id": 5}' >"$work/out" 2>"$work/err"
expect_eq "for-each-nova invalid exit" "$?" "2"
expect_eq "for-each-nova invalid message" "$(cat "$work/err")" \
  "novacat run: the sweep's refresh_references events are invalid:
nova 86cb14e8-2bf7-4bec-9837-df4287f58a01:
\$.correlation_id: must be a UUID
nova d4bbdda3-6824-4e82-b1ce-1b781190fbec:
\$.correlation_id: must be a UUID"
expect_eq "for-each-nova invalid stdout" "$(cat "$work/out")" ""
"$novacat" run refresh_references --db "$db" --for-each-nova \
  --input '{"nova_id": "86cb14e8-2bf7-4bec-9837-df4287f58a01"}' \
  >"$work/out" 2>"$work/err"
expect_eq "for-each-nova with nova_id exit" "$?" "2"
expect_eq "for-each-nova with nova_id message" "$(cat "$work/err")" \
  "novacat run: --for-each-nova gives each run its nova_id; --input may not set one"

# `novacat photometry add`: V1500 Cyg's light curve registered, stored under
# photometry/ and ingested (10 usable rows, 2 bad) as the bucket's event
# would start it; the same file again is the same dataset and a duplicate
# run; a nova that does not exist or a missing file: exit 2, nothing run.
v1500=d4bbdda3-6824-4e82-b1ce-1b781190fbec
"$novacat" photometry add --db "$db" --nova "$v1500" \
  fixtures/photometry/v1500cyg_aavso.csv >"$work/phot.json" 2>"$work/phot.err"
expect_eq "photometry add exit" "$?" "0"
expect_eq "photometry add run" \
  "$(field "$work/phot.json" "[(r['workflow'], r['outcome'], [(e['event'], e['detail']['rows_usable'], e['detail']['rows_bad'], e['detail']['bands']) for e in r['events']]) for r in d['runs']]")" \
  "[('ingest_photometry_dataset', 'INGESTED', [('PhotometryIngested', 10, 2, ['B', 'V'])])]"
dataset=$(field "$work/phot.json" "d['runs'][0]['events'][0]['detail']['dataset_id']")
expect_eq "photometry files" \
  "$(cd "$work/cat.db.objects/novacat-local" && find photometry derived -type f | sed 's|/[0-9a-f]*\.csv$|/<sha256>.csv|' | sort)" \
  "derived/photometry/$v1500/$dataset/light_curve.csv
photometry/$v1500/$dataset/<sha256>.csv"
expect_eq "derived light curve head" \
  "$(head -2 "$work/cat.db.objects/novacat-local/derived/photometry/$v1500/$dataset/light_curve.csv")" \
  "time_mjd,magnitude,magnitude_error,band
42654.25,3.2,0.05,V"
# Its run, started by an S3 event without a nova_id, is listed with the
# nova's runs once it knows the nova (AP-OPS-1), its Attempts beside it.
"$novacat" jobs --nova "$v1500" --db "$db" --attempts --format json >"$work/jobs2.json"
expect_eq "photometry run listed under its nova" \
  "$(field "$work/jobs2.json" "[(r['workflow'], r['outcome'], len(r['attempts']) > 0) for r in d['job_runs'] if r['workflow'] == 'ingest_photometry_dataset']")" \
  "[('ingest_photometry_dataset', 'INGESTED', True)]"
"$novacat" photometry add --db "$db" --nova "$v1500" \
  fixtures/photometry/v1500cyg_aavso.csv >"$work/phot2.json" 2>"$work/phot2.err"
expect_eq "photometry add again" \
  "$?:$(field "$work/phot2.json" "d['runs'][0]['outcome']")" "0:DUPLICATE_SKIPPED"
"$novacat" photometry add --db "$db" --nova 00000000-0000-4000-8000-000000000000 \
  fixtures/photometry/v1500cyg_aavso.csv >"$work/out" 2>"$work/err"
expect_eq "photometry add unknown nova" "$?:$(cat "$work/out")" "2:"
"$novacat" photometry add --db "$db" --nova "$v1500" "$work/none.csv" \
  >"$work/out" 2>"$work/err"
expect_eq "photometry add missing file" "$?:$(cat "$work/err")" \
  "2:novacat photometry add: $work/none.csv is not a file"

# `novacat sources check`: each archive's known question, on the recorded
# answers; latencies vary, so they are replaced.
"$novacat" sources check --sources recorded >"$work/check.txt" 2>"$work/err"
expect_eq "sources check recorded" \
  "$?:$(sed -E 's/ +[0-9]+ ms  / <ms>  /' "$work/check.txt")" \
  "0:SERVICE   QUESTION                 STATUS    LATENCY  FOUND
SIMBAD    identify V1500 CYG       answered <ms>  1 match: V* V1500 Cyg (No*)
VSX       identify V1500 CYG       answered <ms>  1 match: V1500 Cyg (NA+AM)
TNS       identify V1500 CYG       answered <ms>  no match
ESO SSAP  spectra near V1500 Cyg   answered <ms>  2 products
MAST      spectra near V1500 Cyg   answered <ms>  2 products
ADS       references of V1500 Cyg  answered <ms>  5 references (quota: 4987 of 5000 left today)"
# `novacat sources replay`: the recorded answers for another process; the
# live check pointed at it by NOVACAT_*_URL, without secrets (TNS and ADS
# skipped, SIMBAD's bibliography asked instead), MAST at a closed port:
# exit 1, MAST's row says why; then the replay server stops on SIGTERM and
# names the request it had no recording for.
"$novacat" sources replay >"$work/replay.env" 2>"$work/replay.err" &
replay=$!
# Waits for its six lines as long as the process lives: a slow start is
# not a failure, a dead server is (the comparison below then names it).
while [ "$(wc -l <"$work/replay.env")" -lt 6 ] && kill -0 $replay 2>/dev/null; do
  sleep 0.1
done
expect_eq "sources replay variables" \
  "$(sed -E 's|=http://127\.0\.0\.1:[0-9]+/|=<base>/|' "$work/replay.env")" \
  "NOVACAT_SIMBAD_TAP_URL=<base>/simbad
NOVACAT_VSX_URL=<base>/vsx
NOVACAT_TNS_URL=<base>/tns
NOVACAT_ESO_SSAP_URL=<base>/eso
NOVACAT_MAST_URL=<base>/mast
NOVACAT_ADS_URL=<base>/ads"
(
  set -a
  source "$work/replay.env"
  NOVACAT_MAST_URL=http://127.0.0.1:9
  set +a
  unset NOVACAT_TNS_API_KEY NOVACAT_TNS_SECRET NOVACAT_ADS_TOKEN NOVACAT_ADS_SECRET
  "$novacat" sources check --format json >"$work/check.json" 2>"$work/err"
  echo "$?" >"$work/check.exit"
)
expect_eq "sources check live" \
  "$(cat "$work/check.exit"):$(field "$work/check.json" "d['sources'], [(c['service'], c['status'], c.get('found', c.get('error'))) for c in d['checks']]")" \
  "1:live [('SIMBAD', 'answered', '1 match: V* V1500 Cyg (No*)'), ('VSX', 'answered', '1 match: V1500 Cyg (NA+AM)'), ('TNS', 'skipped', 'no API key configured (NOVACAT_TNS_API_KEY or NOVACAT_TNS_SECRET)'), ('ESO SSAP', 'answered', '2 products'), ('MAST', 'failed', \"MAST: curl: Couldn't connect to server\"), ('ADS', 'skipped', 'no token configured (NOVACAT_ADS_TOKEN or NOVACAT_ADS_SECRET)'), ('SIMBAD', 'answered', '5 references')]"
curl -s "$(sed -n 's/^NOVACAT_VSX_URL=//p' "$work/replay.env")/nothing" >/dev/null
kill -TERM $replay
wait $replay
expect_eq "sources replay stops" "$?:$(cat "$work/replay.err")" \
  "0:novacat sources replay: no recording for GET /vsx/nothing"
"$novacat" run initialize_nova --db "$db" --sources recorded-ish \
  --input '{"candidate_name": "V1500 Cygni"}' >"$work/out" 2>"$work/err"
expect_eq "run --sources refused" "$?:$(cat "$work/err")" \
  "105:--sources: recorded-ish not in {recorded,live}
Run with --help for more information."
NOVACAT_SOURCES=maybe "$novacat" run initialize_nova --db "$db" \
  --input '{"candidate_name": "V1500 Cygni"}' >"$work/out" 2>"$work/err"
expect_eq "NOVACAT_SOURCES refused" "$?:$(cat "$work/err")" \
  "2:novacat run: NOVACAT_SOURCES is \"maybe\"; it must be recorded or live"

# simulate keeps the history only when asked: --history adds it to the JSON,
# --print-history prints it on stderr, a line per event.
echo '{"StartAt": "A", "States": {"A": {"Type": "Pass", "Result": {"x": 1}, "End": true}}}' >"$work/pass.asl.json"
echo '{}' >"$work/script.json"
"$novacat" simulate "$work/pass.asl.json" --script "$work/script.json" \
  >"$work/sim.json" 2>"$work/err"
expect_eq "simulate without --history" \
  "$?:$(field "$work/sim.json" "list(d)"):$(cat "$work/err")" \
  "0:['status', 'output', 'error', 'cause', 'states', 'waits']:"
"$novacat" simulate "$work/pass.asl.json" --script "$work/script.json" \
  --history >"$work/sim.json"
expect_eq "simulate --history" \
  "$(field "$work/sim.json" "[(e['type'], e.get('state')) for e in d['history']]")" \
  "[('ExecutionStarted', None), ('StateEntered', 'A'), ('StateExited', 'A'), ('ExecutionSucceeded', None)]"
"$novacat" simulate "$work/pass.asl.json" --script "$work/script.json" \
  --print-history >"$work/sim.json" 2>"$work/err"
expect_eq "simulate --print-history" \
  "$(field "$work/sim.json" "'history' in d"):$(awk '{print $4}' "$work/err" | paste -sd,)" \
  "False:ExecutionStarted,StateEntered,StateExited,ExecutionSucceeded"

# A Fail state that names no Error or Cause: both null, as Step Functions
# leaves them out (never "").
echo '{"StartAt": "F", "States": {"F": {"Type": "Fail"}}}' >"$work/fail.asl.json"
"$novacat" simulate "$work/fail.asl.json" --script "$work/script.json" \
  >"$work/sim.json" 2>"$work/err"
expect_eq "simulate a bare Fail" \
  "$?:$(field "$work/sim.json" "(d['status'], d['error'], d['cause'])")" \
  "0:('FAILED', None, None)"
echo '{"StartAt": "F", "States": {"F": {"Type": "Fail", "Error": "E"}}}' >"$work/fail.asl.json"
"$novacat" simulate "$work/fail.asl.json" --script "$work/script.json" \
  >"$work/sim.json" 2>"$work/err"
expect_eq "simulate a Fail without Cause" \
  "$?:$(field "$work/sim.json" "(d['status'], d['error'], d['cause'])")" \
  "0:('FAILED', 'E', None)"

finish "novacat run: all checks passed"
