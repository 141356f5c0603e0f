#!/usr/bin/env python3
"""Samples the links of a running `fleet --level netns` and prints each node's download and upload per bucket.

    python3 link-sampler.py SECONDS [BUCKET_SECONDS] &   # start, then run the fleet within a few seconds
    java -jar broadcast-bench/target/broadcast-bench.jar fleet --level netns ...

Reads the byte counters of the host ends of the nodes' veth pairs (named s3bf<pid>h<node>) every 0.1 s for
SECONDS; the host end transmits what the node downloads and receives what it uploads. Prints, per node, the
download and upload in MB/s (10^6 bytes/s, Ethernet frames as tc counts them) per bucket (default 0.5 s),
from the first bucket in which any node downloads. A fleet link of R MB/s carries R * 1514 / 1448 on the wire.
"""
import collections
import os
import re
import sys
import time

seconds = float(sys.argv[1])
bucket = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5
samples = []
end = time.time() + seconds
while time.time() < end:
    row = {}
    for name in os.listdir('/sys/class/net'):
        if re.fullmatch(r's3bf\d+h\d+', name):
            try:
                with open(f'/sys/class/net/{name}/statistics/tx_bytes') as tx, \
                        open(f'/sys/class/net/{name}/statistics/rx_bytes') as rx:
                    row[name] = (int(tx.read()), int(rx.read()))
            except OSError:
                pass  # the fleet removed it meanwhile
    samples.append((time.time(), row))
    time.sleep(0.1)

rates = collections.defaultdict(list)  # node -> [(t, down MB/s, up MB/s)]
for (t0, a), (t1, b) in zip(samples, samples[1:]):
    for name in a.keys() & b.keys():
        rates[name].append((t1, (b[name][0] - a[name][0]) / (t1 - t0) / 1e6, (b[name][1] - a[name][1]) / (t1 - t0) / 1e6))
if not rates:
    sys.exit('no fleet links seen (is a netns fleet running?)')
start = min(t for r in rates.values() for t, down, _ in r if down > 0.05)
for name in sorted(rates, key=lambda n: int(n.rsplit('h', 1)[1])):
    buckets = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for t, down, up in rates[name]:
        if t >= start:
            b = buckets[int((t - start) / bucket)]
            b[0] += down
            b[1] += up
            b[2] += 1
    keys = sorted(buckets)
    node = 'node ' + name.rsplit('h', 1)[1]
    print(f'{node:8s} down', ' '.join(f'{buckets[k][0] / buckets[k][2]:5.1f}' for k in keys))
    print(f'{node:8s} up  ', ' '.join(f'{buckets[k][1] / buckets[k][2]:5.1f}' for k in keys))
