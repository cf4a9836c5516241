#!/usr/bin/env bash
# Deploys every workflow to AWS: uploads each workflow's Lambda zip to the
# bucket, then creates or updates the stack (generated/stack.template.json)
# with `aws cloudformation deploy`. What it runs is exactly what the
# README's "Deploy" section lists; it checks first what would otherwise
# fail late (a zip not built, the bucket missing) and says how to fix it.
#
# The zips go under a prefix named by their content, <prefix><code id>/,
# the code id the first 16 hex digits of the SHA-256 of the lines
# "<workflow> <the zip's SHA-256>" in workflow order: CloudFormation updates
# a function's code only when its S3 key changes, so new step logic is a
# new key (the same zips, the same key: nothing to update, exit 0).
#
#   scripts/deploy.sh --bucket BUCKET [--stack-name NAME] [--prefix PREFIX]
#                     [--build-dir DIR] [--table-name NAME]
#                     [--event-bus-name NAME] [--alarm-topic ARN]
#                     [--tns-secret ARN] [--ads-secret ARN]
#
# Defaults: stack `novacat`, prefix `novacat/`, build dir `build/release`,
# the stack's own defaults for the table (`NovaCat`) and the bus
# (`novacat`), and no alarm topic (the alarms notify no one; --alarm-topic
# names an SNS topic they notify). --tns-secret and --ads-secret give the
# ARNs of the Secrets Manager secrets the functions read (the stack's
# TnsSecretArn and AdsSecretArn: initialize_nova's TNS credentials,
# refresh_references's ADS token); without them the clients that need them
# are skipped. A secret given must be there (checked first). The AWS CLI
# takes its credentials, region and endpoint the usual way (AWS_PROFILE,
# AWS_REGION, AWS_ENDPOINT_URL...).
# Exit status: 0 deployed, 1 a command failed, 2 nothing was done (usage, a
# missing zip, bucket or tool).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat >&2 <<'USAGE'
usage: scripts/deploy.sh --bucket BUCKET [--stack-name NAME] [--prefix PREFIX]
                         [--build-dir DIR] [--table-name NAME]
                         [--event-bus-name NAME] [--alarm-topic ARN]
                         [--tns-secret ARN] [--ads-secret ARN]
USAGE
  exit 2
}

bucket="" stack="novacat" prefix="novacat/" build="build/release"
overrides=()
secrets=()  # the secrets' ARNs given, checked before anything is uploaded
while [ $# -gt 0 ]; do
  case "$1" in
    --bucket) bucket="${2:-}"; shift 2 ;;
    --stack-name) stack="${2:-}"; shift 2 ;;
    --prefix) prefix="${2:-}"; shift 2 ;;
    --build-dir) build="${2:-}"; shift 2 ;;
    --table-name) overrides+=("TableName=${2:-}"); shift 2 ;;
    --event-bus-name) overrides+=("EventBusName=${2:-}"); shift 2 ;;
    --alarm-topic) overrides+=("AlarmTopicArn=${2:-}"); shift 2 ;;
    --tns-secret) overrides+=("TnsSecretArn=${2:-}"); secrets+=("--tns-secret=${2:-}"); shift 2 ;;
    --ads-secret) overrides+=("AdsSecretArn=${2:-}"); secrets+=("--ads-secret=${2:-}"); shift 2 ;;
    -h|--help) usage ;;
    *) echo "deploy: unknown argument '$1'" >&2; usage ;;
  esac
done
if [ -z "$bucket" ]; then
  echo "deploy: --bucket is required: the S3 bucket for the zips and the template" >&2
  usage
fi
template=generated/stack.template.json
aws=(aws)
command -v aws >/dev/null || {
  echo "deploy: the aws CLI is missing (it comes with the machine's Python)" >&2
  exit 2
}

# The workflows the stack deploys, and their zips.
workflows=$(python3 -c '
import json, sys
resources = json.load(open(sys.argv[1]))["Resources"].values()
print(" ".join(sorted(r["Properties"]["Environment"]["Variables"]["NOVACAT_WORKFLOW"]
                      for r in resources if r["Type"] == "AWS::Lambda::Function")))
' "$template")
missing=()
for w in $workflows; do
  [ -f "$build/lambda/$w.zip" ] || missing+=("$build/lambda/$w.zip")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deploy: missing ${missing[*]}: build them first with" >&2
  echo "  cmake --build $build --target lambda_zips" >&2
  exit 2
fi
if ! "${aws[@]}" s3api head-bucket --bucket "$bucket" >/dev/null 2>&1; then
  echo "deploy: bucket '$bucket' is not there or not yours (make it: aws s3 mb s3://$bucket)" >&2
  exit 2
fi

# A secret's parameter takes its ARN (the functions' policies name it), and
# the secret must be there: the stack would deploy, and every cold start
# of the functions that read it would fail.
for given in ${secrets[@]+"${secrets[@]}"}; do
  option=${given%%=*} arn=${given#*=}
  [ -n "$arn" ] || continue  # empty: the secret is no longer read
  if ! [[ "$arn" =~ ^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:.+$ ]]; then
    echo "deploy: $option takes a Secrets Manager secret's ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>), got '$arn'" >&2
    exit 2
  fi
  if ! "${aws[@]}" secretsmanager describe-secret --secret-id "$arn" >/dev/null 2>&1; then
    echo "deploy: $option: secret '$arn' is not there or not yours (make it: aws secretsmanager create-secret --name <name> --secret-string <JSON>)" >&2
    exit 2
  fi
done

code_id=$(for w in $workflows; do
  echo "$w $(sha256sum "$build/lambda/$w.zip" | cut -d' ' -f1)"
done | sha256sum | cut -c1-16)
code_prefix="$prefix$code_id/"
# A key holds one content: one already there (the same zips deployed
# before) is not uploaded again.
for w in $workflows; do
  if "${aws[@]}" s3api head-object --bucket "$bucket" \
    --key "$code_prefix$w.zip" >/dev/null 2>&1; then
    echo "deploy: s3://$bucket/$code_prefix$w.zip (already there)"
    continue
  fi
  echo "deploy: s3://$bucket/$code_prefix$w.zip"
  "${aws[@]}" s3 cp --only-show-errors "$build/lambda/$w.zip" \
    "s3://$bucket/$code_prefix$w.zip"
done
# The template is over CloudFormation's 51,200-byte inline limit:
# --s3-bucket uploads it.
"${aws[@]}" cloudformation deploy --template-file "$template" \
  --stack-name "$stack" --s3-bucket "$bucket" --s3-prefix "${prefix}templates" \
  --parameter-overrides "ArtifactBucket=$bucket" \
  "ArtifactKeyPrefix=$code_prefix" ${overrides[@]+"${overrides[@]}"} \
  --capabilities CAPABILITY_IAM --no-fail-on-empty-changeset
