package io.s3broadcast.bench.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Who is connected to whom: a full mesh (N - 1 connections per node), or a bounded overlay as the engine's dialler
 * builds one above {@code overlayPeers + 1} members ({@link #dialled}, refilled after the grace by {@link #fill}), or
 * a random overlay of at most {@code k} peers per node ({@link #random}, the simulator's before session 21). The
 * engine's dialler also replaces peers that are done while the node is not; not modelled.
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
        List<Set<Integer>> adj = emptyAdjacency(n);
        List<Integer> order = shuffledNodes(n, random);
        for (int i : order) {
            for (int attempt = 0; adj.get(i).size() < k && attempt < 50 * k; attempt++) {
                int j = random.nextInt(n);
                if (j != i && adj.get(j).size() < k && !adj.get(i).contains(j)) {
                    adj.get(i).add(j);
                    adj.get(j).add(i);
                }
            }
        }
        return sorted(adj);
    }

    /**
     * The overlay as the engine's dialler builds it at the start (broadcast-p2p {@code Dialer}): every node dials
     * {@code ceil(k / 2)} random members (it is the dialler of about half the pairs and dials half its overlay, the
     * other half dialling it), each accepted unless the member already has {@code first} peers ({@code Connections}:
     * {@code overlayPeers} for a member's first dial since session 23; {@code ClusterConfig.acceptPeers} before). A
     * node's peers are then its dials plus the dials it received: about {@code k}, spread from about {@code k / 2} to
     * {@code first}. Nodes in a random order; a dial to a member already connected or full is drawn again ({@code 50
     * k} draws at most). No node insists here: each has members enough to dial.
     */
    static Overlay dialled(int n, int k, int first, long seed) {
        Random random = new Random(seed);
        List<Set<Integer>> adj = emptyAdjacency(n);
        List<Integer> order = shuffledNodes(n, random);
        int half = (k + 1) / 2;
        for (int i : order) {
            int dialled = 0;
            for (int attempt = 0; dialled < half && adj.get(i).size() < first && attempt < 50 * k; attempt++) {
                int j = random.nextInt(n);
                if (j != i && adj.get(j).size() < first && !adj.get(i).contains(j)) {
                    adj.get(i).add(j);
                    adj.get(j).add(i);
                    dialled++;
                }
            }
        }
        return sorted(adj);
    }

    private static List<Set<Integer>> emptyAdjacency(int n) {
        List<Set<Integer>> adj = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            adj.add(new HashSet<>());
        }
        return adj;
    }

    /** Nodes 0 to n - 1 in a random order (one shuffle of {@code random}). */
    private static List<Integer> shuffledNodes(int n, Random random) {
        List<Integer> order = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            order.add(i);
        }
        Collections.shuffle(order, random);
        return order;
    }

    /** The overlay of {@code adj}, each node's peers in ascending order. */
    private static Overlay sorted(List<Set<Integer>> adj) {
        List<List<Integer>> out = new ArrayList<>(adj.size());
        for (Set<Integer> s : adj) {
            List<Integer> l = new ArrayList<>(s);
            Collections.sort(l);
            out.add(l);
        }
        return new Overlay(out);
    }

    /**
     * The dialler's refill once a node has been short of peers for its grace: nodes (in a random order) with fewer
     * than {@code k} peers dial random members until they have {@code k}. A member with fewer than {@code first}
     * peers accepts; one with {@code first} or more but fewer than {@code accept} refuses a first dial, and a node
     * that found no member with room in its draws ({@code 50 k}, as the engine's dialler runs out of members to
     * dial) dials those that refused it again, in the order they refused, and each accepts ({@code Connections}
     * since session 23). With {@code first >= accept} (the engine before): members with fewer than {@code accept}
     * accept, nobody insists. Returns the new pairs, which this overlay now has.
     */
    List<int[]> fill(int k, int first, int accept, Random random) {
        int n = neighbours.size();
        List<Set<Integer>> adj = new ArrayList<>(n);
        for (List<Integer> l : neighbours) {
            adj.add(new HashSet<>(l));
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            order.add(i);
        }
        Collections.shuffle(order, random);
        List<int[]> added = new ArrayList<>();
        int bound = Math.min(first, accept);
        for (int i : order) {
            Set<Integer> refusedBy = new LinkedHashSet<>();
            for (int attempt = 0; adj.get(i).size() < k && attempt < 50 * k; attempt++) {
                int j = random.nextInt(n);
                if (j == i || adj.get(i).contains(j)) {
                    continue;
                }
                if (adj.get(j).size() < bound) {
                    adj.get(i).add(j);
                    adj.get(j).add(i);
                    added.add(new int[] {i, j});
                } else if (adj.get(j).size() < accept) {
                    refusedBy.add(j);
                }
            }
            for (int j : refusedBy) {
                if (adj.get(i).size() >= k) {
                    break;
                }
                if (adj.get(j).size() < accept && !adj.get(i).contains(j)) {
                    adj.get(i).add(j);
                    adj.get(j).add(i);
                    added.add(new int[] {i, j});
                }
            }
        }
        for (int[] e : added) {
            List<Integer> a = new ArrayList<>(neighbours.get(e[0]));
            a.add(e[1]);
            neighbours.set(e[0], a);
            List<Integer> b = new ArrayList<>(neighbours.get(e[1]));
            b.add(e[0]);
            neighbours.set(e[1], b);
        }
        return added;
    }

    /** Nodes with {@code d} peers, for d = 0 to the most. */
    int[] degrees() {
        int[] h = new int[maxDegree() + 1];
        for (List<Integer> l : neighbours) {
            h[l.size()]++;
        }
        return h;
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
