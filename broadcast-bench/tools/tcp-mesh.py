#!/usr/bin/env python3
"""One node of a raw TCP mesh, run in its namespace by tcp-ceiling.sh (which see):

    python3 tcp-mesh.py INDEX ADDR0,ADDR1,... SECONDS MODE START

Every pair of nodes has one connection (the lower index dials), as the peers of a fleet do. MODE bidir: both
ends send on it at once, as two nodes exchanging pieces; oneway: only the dialler sends. Senders start at the
wall-clock time START. Prints the payload bytes/s this node received from each peer between 2 s and
SECONDS - 1 s after START, and their sum.
"""
import socket, sys, threading, time
idx = int(sys.argv[1]); addrs = sys.argv[2].split(','); secs = float(sys.argv[3]); mode = sys.argv[4]
PORT = 7999
buf = b'x' * 65536
recv = {}  # peer -> list of (t, total)
lock = threading.Lock()
start_at = float(sys.argv[5])  # wall-clock start
def sender(s):
    while time.time() < start_at:
        time.sleep(0.01)
    try:
        while time.time() < start_at + secs:
            s.sendall(buf)
    except OSError:
        pass
def receiver(s, peer):
    total = 0; marks = []
    s.settimeout(1.0)
    while time.time() < start_at + secs + 1:
        try:
            n = len(s.recv(262144))
        except socket.timeout:
            continue
        except OSError:
            break
        if n == 0:
            break
        total += n
        t = time.time() - start_at
        marks.append((t, total))
    with lock:
        recv[peer] = marks
def handle(s, peer, send):
    ths = [threading.Thread(target=receiver, args=(s, peer))]
    if send:
        ths.append(threading.Thread(target=sender, args=(s,)))
    for t in ths: t.start()
    return ths
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind((addrs[idx], PORT)); srv.listen(16)
threads = []
expect_in = idx  # lower indexes dial us
def acceptor():
    for _ in range(expect_in):
        c, a = srv.accept()
        peer = addrs.index(a[0])
        threads.extend(handle(c, peer, mode == 'bidir'))
at = threading.Thread(target=acceptor); at.start()
time.sleep(0.5)
for j in range(idx + 1, len(addrs)):
    s = socket.create_connection((addrs[j], PORT))
    threads.extend(handle(s, j, True))
at.join()
for t in threads: t.join()
def rate(marks, a, b):
    def at(t):
        best = 0
        for tt, tot in marks:
            if tt <= t: best = tot
            else: break
        return best
    return (at(b) - at(a)) / (b - a)
tot = 0
out = []
for peer in sorted(recv):
    r = rate(recv[peer], 2, secs - 1); tot += r
    out.append(f'from{peer}={r/1e6:.3f}')
print(f'node{idx} down={tot/1e6:.3f} MB/s ' + ' '.join(out), flush=True)
