#!/usr/bin/env python3
"""Where the node JVMs' CPU goes, from async-profiler's collapsed stacks of a `fleet --level netns` run.

    java -jar broadcast-bench/target/broadcast-bench.jar fleet --level netns ... \
        --node-jvm-option=-agentpath:/path/to/libasyncProfiler.so=start,event=cpu,interval=2ms,threads,ann,collapsed,file=/tmp/prof/n-%p.txt
    python3 node-cpu-profile.py /tmp/prof [--interval-ms 2] [--thread REGEX] [--top N]

One file per node JVM (%p is its pid); `threads` puts each thread's name first in every stack, `ann` marks each Java
frame with its kind. With `loop=4s` in the agent's options and `file=/tmp/prof/n-%p-%t.txt`, each node writes one file
per 4 s window: `--windows` then prints the split window by window (the files of a pid in name order).

Prints CPU-seconds per node (samples x interval / nodes): by thread (a thread name's numbers after '-' and at its end folded into N), and for the threads
matching --thread (default: the peer loops) by the kind of the frame running (async-profiler's annotations:
_[0] interpreted, _[1] C1-compiled, _[j] compiled, _[i] inlined, _[k] kernel; unmarked frames are native code), and
their hottest frames (inclusive).
"""
import argparse
import collections
import os
import re
import sys

KINDS = {'_[0]': 'interpreted', '_[1]': 'C1', '_[j]': 'compiled', '_[i]': 'inlined', '_[k]': 'kernel'}


def thread_of(frame):
    return re.sub(r'(?<=[-#])\d+|\d+$', 'N', frame.split(' tid=')[0].strip('[]'))


def kind_of(frame):
    return KINDS.get(frame[-4:], 'native')


def read(path):
    for line in open(path, errors='replace'):
        stack, _, count = line.rstrip('\n').rpartition(' ')
        if stack and count.isdigit():
            yield stack.split(';'), int(count)


def split(files, pattern):
    threads = collections.Counter()
    kinds = collections.Counter()
    frames = collections.Counter()
    for path in files:
        for frames_of, count in read(path):
            thread = thread_of(frames_of[0])
            threads[thread] += count
            if re.search(pattern, thread):
                kinds[kind_of(frames_of[-1])] += count
                for f in set(frames_of[1:]):
                    frames[re.sub(r'_\[.\]$', '', f)] += count
    return threads, kinds, frames


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('dir')
    p.add_argument('--interval-ms', type=float, default=2.0)
    p.add_argument('--thread', default='peer', help='regex over thread names for the kind split (default: peer)')
    p.add_argument('--top', type=int, default=25)
    p.add_argument('--windows', action='store_true', help='one file per window per pid (loop=...)')
    a = p.parse_args()
    files = sorted(os.path.join(a.dir, f) for f in os.listdir(a.dir) if f.endswith('.txt'))
    by_pid = collections.defaultdict(list)
    for f in files:
        m = re.match(r'n-(\d+)', os.path.basename(f))
        if m:
            by_pid[m.group(1)].append(f)
    files = [f for fs in by_pid.values() for f in fs]
    if not by_pid:
        sys.exit('no n-<pid>*.txt files in ' + a.dir)
    nodes = len(by_pid)
    s = a.interval_ms / 1000 / nodes

    def show(counter, limit):
        return '  '.join(f'{k} {v * s:.3f}' for k, v in counter.most_common(limit))

    if a.windows:
        for w in range(max(len(v) for v in by_pid.values())):
            threads, kinds, _ = split([v[w] for v in by_pid.values() if w < len(v)], a.thread)
            print(f'window {w}: all {sum(threads.values()) * s:.3f}; {show(threads, 4)}')
            print(f'  {a.thread} by kind: {show(kinds, 8)}')
        return
    threads, kinds, frames = split(files, a.thread)
    print(f'{nodes} node JVMs, CPU-s per node: {sum(threads.values()) * s:.3f}')
    for k, v in threads.most_common(12):
        print(f'  {v * s:7.3f}  {k}')
    print(f'threads matching {a.thread!r} by the kind of frame running: {show(kinds, 8)}')
    for k, v in frames.most_common(a.top):
        print(f'  {v * s:7.3f}  {k[:150]}')


if __name__ == '__main__':
    main()
