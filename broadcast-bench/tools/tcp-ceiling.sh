#!/bin/bash
# The raw TCP ceiling of the netns fleet's links: what plain TCP carries between node namespaces shaped as
# `fleet --level netns` shapes them (Namespaces.shape: tbf at RATE payload bytes/s scaled by 1514/1448, burst
# max(64 KiB, RATE/50), latency 100ms, on the host end of each veth and on its namespace end), as root:
#
#     broadcast-bench/tools/tcp-ceiling.sh NODES RATE SECONDS MODE     e.g.  tcp-ceiling.sh 4 10000000 12 bidir
#
# MODE bidir: every pair of nodes one connection, both ends sending (two nodes exchanging pieces); oneway: only
# the lower index sends. Each node prints what it received per second (payload). Makes namespaces s3bt<i> on a
# bridge s3btbr with 10.214.0.0/24 (not the fleet's names or subnet) and removes them at the end.
set -e
n=$1; rate=$2; secs=$3; mode=$4
here=$(cd "$(dirname "$0")" && pwd)
down() {
  for i in $(seq 0 $((n - 1))); do ip netns del s3bt$i 2>/dev/null || true; ip link del s3bth$i 2>/dev/null || true; done
  ip link del s3btbr 2>/dev/null || true
}
trap down EXIT
down
burst=$(( rate / 50 > 65536 ? rate / 50 : 65536 ))
bits=$(python3 -c "print(round($rate * 1514 / 1448 * 8))")
ip link add s3btbr type bridge; ip addr add 10.214.0.1/24 dev s3btbr; ip link set s3btbr up
addrs=""
for i in $(seq 0 $((n - 1))); do
  ip netns add s3bt$i
  ip link add s3bth$i type veth peer name eth0 netns s3bt$i
  ip link set s3bth$i master s3btbr; ip link set s3bth$i up
  ip netns exec s3bt$i ip addr add 10.214.0.$((10 + i))/24 dev eth0
  ip netns exec s3bt$i ip link set eth0 up; ip netns exec s3bt$i ip link set lo up
  tc qdisc add dev s3bth$i root handle 1: tbf rate ${bits}bit burst $burst latency 100ms
  ip netns exec s3bt$i tc qdisc add dev eth0 root handle 1: tbf rate ${bits}bit burst $burst latency 100ms
  addrs="$addrs,10.214.0.$((10 + i))"
done
addrs=${addrs#,}
start=$(python3 -c "import time; print(time.time() + 1.5)")
for i in $(seq 0 $((n - 1))); do
  ip netns exec s3bt$i python3 "$here/tcp-mesh.py" $i $addrs $secs $mode $start &
done
wait
