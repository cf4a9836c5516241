#!/usr/bin/env python3
"""S3ObjectStore on moto (ctest transfer.moto.s3, fixture aws_moto): boto3
creates a bucket; `transfer_s3_put` (S3ObjectStore) Puts a 3 MiB file under
a key with a space and a slash and Gets it back; the StoredObject and the
Fetched it prints must be exact (length, SHA-256, ETag = the MD5 without
quotes, content type), the file it got must hold the bytes, and boto3 must
read back the same bytes, content type and ETag. A put to a bucket that does
not exist is TERMINAL, with S3's code and message.

    s3_moto_test.py <transfer_s3_put binary>
    (NOVACAT_MOTO_STATE names the fixture's state file)
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

try:
    import boto3
except ImportError as e:
    sys.exit(f"boto3 is missing from {sys.executable} ({e}); "
             "scripts/setup.sh says what the tests need")

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}")


def main(program):
    state = os.environ.get("NOVACAT_MOTO_STATE")
    if not state:
        sys.exit("NOVACAT_MOTO_STATE is not set (needs the aws_moto fixture)")
    with open(state) as f:
        endpoint = f.readline().strip()
    region = "eu-west-1"
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name=region,
                      aws_access_key_id="testing",
                      aws_secret_access_key="testing")
    bucket = f"novacat-transfer-{os.getpid()}"
    s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={
        "LocationConstraint": region})
    env = dict(os.environ, AWS_ENDPOINT_URL_S3=endpoint, AWS_REGION=region,
               AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing")
    env.pop("AWS_SESSION_TOKEN", None)

    data = bytes((i * 31 + i // 4096) & 0xFF for i in range(3 * 1024 * 1024))
    sha256 = hashlib.sha256(data).hexdigest()
    md5 = hashlib.md5(data).hexdigest()
    key = "spectra/V1500 Cyg/ADP.2020-06-01T10:00:00.000.fits"
    with tempfile.TemporaryDirectory() as work:
        source = os.path.join(work, "spectrum.fits")
        with open(source, "wb") as f:
            f.write(data)
        got_dir = os.path.join(work, "got")
        os.mkdir(got_dir)
        run = subprocess.run([program, bucket, key, source,
                              "application/fits", got_dir], env=env,
                             capture_output=True, text=True, timeout=60)
        check(run.returncode == 0,
              f"transfer_s3_put exited {run.returncode}: "
              f"{run.stderr.strip()}")
        if run.returncode == 0:
            out = json.loads(run.stdout)
            check(out["put"] == {"bucket": bucket, "key": key,
                                 "byte_length": len(data), "sha256": sha256,
                                 "etag": md5},
                  f"StoredObject {out['put']}")
            got = out["get"] or {}
            check(got.get("byte_length") == len(data)
                  and got.get("sha256") == sha256 and got.get("etag") == md5
                  and got.get("content_type") == "application/fits",
                  f"Fetched {got}")
            check(os.path.dirname(got.get("file", "")) == got_dir,
                  f"Get's file {got.get('file')} in {got_dir}")
            if got.get("file") and os.path.exists(got["file"]):
                with open(got["file"], "rb") as f:
                    check(f.read() == data, "Get's file holds the bytes")
            check(len(os.listdir(got_dir)) == 1,
                  f"one file in {got_dir}: {os.listdir(got_dir)}")
        stored = s3.get_object(Bucket=bucket, Key=key)
        check(stored["Body"].read() == data, "boto3 reads back the bytes")
        check(stored["ETag"] == f'"{md5}"',
              f"ETag {stored['ETag']} == \"{md5}\"")
        check(stored["ContentType"] == "application/fits",
              f"ContentType {stored['ContentType']}")

        # A bucket that does not exist: TERMINAL, with S3's words.
        missing = f"{bucket}-missing"
        run = subprocess.run([program, missing, "a.fits", source,
                              "application/fits", got_dir], env=env,
                             capture_output=True, text=True, timeout=60)
        expected = (f"TERMINAL: put s3://{missing}/a.fits: S3 NoSuchBucket: "
                    "The specified bucket does not exist")
        check(run.returncode == 2 and run.stderr.strip() == expected,
              f"a missing bucket is TERMINAL: exit {run.returncode}, "
              f"{run.stderr.strip()!r} == {expected!r}")

    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("S3ObjectStore -> moto S3 -> boto3: exact")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} <transfer_s3_put binary>")
    sys.exit(main(sys.argv[1]))
