package io.s3broadcast.bench.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Who is connected to whom: a full mesh (N - 1 connections per node), or a bounded random overlay, each node with at
 * most {@code k} peers, as the engine's {@code overlayPeers} builds one above {@code overlayPeers + 1} members (the
 * engine's dialler also replaces peers that are done while the node is not; the simulator's overlay stays fixed).
 */
final class Overlay {

    private final List<List<Integer>> neighbours;

    private Overlay(List<List<Integer>> neighbours) {
        this.neighbours = neighbours;
    }

    /** No connections (the flat tree). */
    static Overlay none(int n) {
        List<List<Integer>> adj = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            adj.add(List.of());
        }
        return new Overlay(adj);
    }

    /** Every node connected to every other. */
    static Overlay fullMesh(int n) {
        List<List<Integer>> adj = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            List<Integer> l = new ArrayList<>(n - 1);
            for (int j = 0; j < n; j++) {
                if (j != i) {
                    l.add(j);
                }
            }
            adj.add(l);
        }
        return new Overlay(adj);
    }

    /**
     * A random overlay of at most {@code k} peers per node: nodes in a random order each dial random nodes that have
     * fewer than {@code k} peers until they have {@code k} themselves (or {@code 50 k} draws failed, which leaves the
     * last nodes of the order a few short). Not checked to be connected: {@link #connected()} tells (the reports show
     * it).
     */
    static Overlay random(int n, int k, long seed) {
        Random random = new Random(seed);
        List<Set<Integer>> adj = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            adj.add(new HashSet<>());
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            order.add(i);
        }
        Collections.shuffle(order, random);
        for (int i : order) {
            for (int attempt = 0; adj.get(i).size() < k && attempt < 50 * k; attempt++) {
                int j = random.nextInt(n);
                if (j != i && adj.get(j).size() < k && !adj.get(i).contains(j)) {
                    adj.get(i).add(j);
                    adj.get(j).add(i);
                }
            }
        }
        List<List<Integer>> out = new ArrayList<>(n);
        for (Set<Integer> s : adj) {
            List<Integer> l = new ArrayList<>(s);
            Collections.sort(l);
            out.add(l);
        }
        return new Overlay(out);
    }

    List<Integer> neighbours(int node) {
        return neighbours.get(node);
    }

    int size() {
        return neighbours.size();
    }

    int maxDegree() {
        return neighbours.stream().mapToInt(List::size).max().orElse(0);
    }

    double meanDegree() {
        return neighbours.stream().mapToInt(List::size).average().orElse(0);
    }

    /** Whether every node can reach every other (always true for one node). */
    boolean connected() {
        int n = neighbours.size();
        if (n <= 1) {
            return true;
        }
        BitSet seen = new BitSet(n);
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        queue.add(0);
        seen.set(0);
        while (!queue.isEmpty()) {
            for (int j : neighbours.get(queue.poll())) {
                if (!seen.get(j)) {
                    seen.set(j);
                    queue.add(j);
                }
            }
        }
        return seen.cardinality() == n;
    }
}
