#!/usr/bin/env python3
"""Where a node JVM's CPU goes, from a system-wide perf recording of a `fleet --level netns` run.

    perf record -a -F 999 -o perf.data -- java -jar broadcast-bench/target/broadcast-bench.jar fleet --level netns \
        ... --node-jvm-option=-XX:+UnlockDiagnosticVMOptions --node-jvm-option=-XX:+DumpPerfMapAtExit
    perf script -i perf.data -F comm,pid,tid,ip,sym,dso > perf.txt
    python3 node-cpu-split.py perf.txt [PID,...]

Without PIDs, the node JVMs are the processes with a thread named s3broadcast-peer-* and none named S3Proxy-*
(the bench's own JVM). -XX:+DumpPerfMapAtExit writes /tmp/perf-<pid>.map so
compiled Java methods get names. Prints CPU-seconds per node (samples / 999) by kind (interpreter, compiled
Java, the JVM itself, kernel, stubs, native libraries), by thread and kind, and the hottest compiled methods.
"""
import collections
import re
import sys

HZ = 999
LINE = re.compile(r'\s*(.+?)\s+(\d+)/(\d+)\s+([0-9a-f]+)\s+(.*)\s+\((.*)\)\s*$')
if len(sys.argv) > 2:
    pids = set(sys.argv[2].split(','))
else:
    names = collections.defaultdict(set)
    for line in open(sys.argv[1], errors='replace'):
        m = LINE.match(line)
        if m:
            names[m.group(2)].add(m.group(1).strip())
    pids = {p for p, n in names.items() if any(t.startswith('s3broadcast-pee') for t in n)
            and not any(t.startswith('S3Proxy') for t in n)}
    print('node JVMs:', ','.join(sorted(pids)))
kinds = collections.Counter()
threads = collections.Counter()
methods = collections.Counter()
for line in open(sys.argv[1], errors='replace'):
    m = LINE.match(line)
    if not m or m.group(2) not in pids:
        continue
    comm, _, _, _, sym, dso = m.groups()
    thread = re.sub(r'[-#]?\d+$', '', comm.strip())
    if 'kernel' in dso:
        kind = 'kernel'
    elif sym.startswith('Interpreter'):
        kind = 'interpreter'
    elif sym.startswith('StubRoutines'):
        kind = 'stubs (digests, copies)'
    elif 'perf-' in dso or '[JIT]' in dso:
        kind = 'compiled java'
        methods[sym[:110]] += 1
    elif 'libjvm' in dso:
        kind = 'jvm (compilers, class loading, gc)'
    else:
        kind = re.sub(r'^AWSCRT_\d+', '', dso.rsplit('/', 1)[-1])  # CRT's library extracted under a temporary name
    kinds[kind] += 1
    threads[(thread, kind)] += 1
n = len(pids) * HZ
print(f'CPU-s per node: {sum(kinds.values()) / n:.2f}')
for kind, count in kinds.most_common():
    print(f'  {kind:36s} {count / n:5.2f}')
print('by thread (CPU-s per node):')
for (thread, kind), count in threads.most_common(20):
    print(f'  {thread:20s} {kind:36s} {count / n:5.2f}')
print('hottest compiled methods (CPU-s per node):')
for sym, count in methods.most_common(15):
    print(f'  {count / n:5.3f} {sym}')
