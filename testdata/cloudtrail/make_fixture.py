#!/usr/bin/env python3
"""Writes the CloudTrail-shaped fixture: three gzipped {"Records":[...]} files whose events
overlap (an event delivered twice lands in two files), and expected.ndjson, each event once
as its bytes in the first file that holds it. Deterministic: gzip without a time stamp.

    python3 testdata/cloudtrail/make_fixture.py   # from the repository root
"""
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def event(n):
    return {
        "eventVersion": "1.08",
        "userIdentity": {"type": "IAMUser", "userName": "user%d" % (n % 3), "arn": "arn:aws:iam::123456789012:user/u%d" % (n % 3)},
        "eventTime": "2026-11-26T10:%02d:%02dZ" % (n // 6, (n * 10) % 60),
        "eventSource": "s3.amazonaws.com",
        "eventName": ["GetObject", "PutObject", "ListBucket"][n % 3],
        "awsRegion": "eu-west-1",
        "requestParameters": {"bucketName": "logs", "key": "k/%d \"q\" \u00e9" % n},
        "eventID": "%08x-0000-4000-8000-%012d" % (n * 2654435761 % 2**32, n),
    }


# Files of events 0-9, 7-15 and 14-21 (in their delivery order), so 7-9 and 14-15 come twice.
FILES = [range(0, 10), range(7, 16), range(14, 22)]


def main():
    seen = set()
    expected = []
    for i, events in enumerate(FILES, 1):
        records = [json.dumps(event(n), separators=(",", ":"), ensure_ascii=False) for n in events]
        doc = '{"Records":[' + ",".join(records) + "]}\n"
        with open(os.path.join(HERE, "trail%d.json.gz" % i), "wb") as f:
            f.write(gzip.compress(doc.encode(), mtime=0))
        for n, r in zip(events, records):
            if n not in seen:
                seen.add(n)
                expected.append(r + "\n")
    with open(os.path.join(HERE, "expected.ndjson"), "w") as f:
        f.write("".join(expected))


if __name__ == "__main__":
    main()
