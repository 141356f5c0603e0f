package io.s3broadcast.bench.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * TCP connections as fluid flows (the model of the simulator's links): each node has an upload and a download
 * capacity, S3 optionally an aggregate one; a flow runs from a node's upload (or from S3) to a node's download and may
 * have a cap of its own (the rate an S3 GET drew). Rates are max-min fair: progressive filling over every resource,
 * so a resource shared by k flows gives each its fair share unless a flow is held lower elsewhere, and what it leaves
 * goes to the others. A flow carries a queue of items (pieces) sent back to back, like the bytes on one connection;
 * the listener hears each item when its last byte arrives and when the queue runs dry.
 *
 * <p>Optionally the nodes share a host's CPU ({@link HostCpu}): one more resource, of {@code cores} CPU-seconds per
 * second, that every flow with a CPU cost crosses, each byte using {@link Flow#cpuPerByte()} of it. The filling stays
 * max-min fair in bytes per second: when the CPU binds, every flow it holds gets the same rate and uses CPU in
 * proportion to its cost per byte.
 *
 * <p>Rates are recomputed when the set of busy flows changes: at once (the same virtual instant) with a step of 0,
 * else at the next multiple of the step, so a fleet of thousands of nodes pays one recomputation per step instead of
 * one per change (a flow that starts waits at most one step for its rate, a freed share stays unused at most one
 * step).
 */
public final class FluidNetwork {

    /** Hears a flow's items. */
    public interface Listener {
        /** The last byte of {@code piece} arrived. */
        void delivered(Flow flow, int piece, long bytes);

        /** The flow's queue is empty. */
        void drained(Flow flow);
    }

    /** One connection's bytes in one direction. Made by {@link #open}. */
    public static final class Flow {
        final int up;
        final int down;
        final boolean s3;
        final double ownCap;
        final double cpu;
        final Listener listener;
        final ArrayDeque<long[]> items = new ArrayDeque<>();
        final int[] pos = {-1, -1, -1};
        double headLeft;
        double rate;
        long since;
        long gen;
        boolean busy;
        boolean closed;
        boolean frozen;

        Flow(int up, int down, boolean s3, double ownCap, double cpu, Listener listener) {
            this.up = up;
            this.down = down;
            this.s3 = s3;
            this.ownCap = ownCap;
            this.cpu = cpu;
            this.listener = listener;
        }

        /** The host CPU a byte of this flow costs, CPU-seconds (0: the flow does not use the host's CPU). */
        public double cpuPerByte() {
            return cpu;
        }

        /** The current rate, bytes per second. */
        public double rate() {
            return rate;
        }

        /** Items queued, the one in transfer included. */
        public int queued() {
            return items.size();
        }

        /** Whether {@code piece} is queued and not started. */
        public boolean hasUnstarted(int piece) {
            boolean first = true;
            for (long[] it : items) {
                if (it[0] == piece) {
                    return !(first && headLeft < it[1]);
                }
                first = false;
            }
            return false;
        }
    }

    private final EventQueue events;
    private final int nodes;
    private final double[] cap;
    /** The host CPU's resource index, -1 when the nodes have cores of their own. */
    private final int host;
    @SuppressWarnings("unchecked")
    private final List<Flow>[] members;
    private final long stepNanos;
    private final boolean maxMin;
    private boolean recomputeScheduled;
    /** Whether the host CPU can bind in this recomputation (else it is left out of the filling). */
    private boolean hostMayBind;
    private long recomputations;
    private int busyFlows;
    private int peakBusyFlows;
    /** Per resource: the sum of its flows' rates now, the bytes carried until {@code lastChange}, and when. */
    private final double[] rateSum;
    private final double[] carried;
    private final long[] lastChange;

    /**
     * @param down each node's download capacity, bytes per second, 0 for unlimited
     * @param up each node's upload capacity, bytes per second, 0 for unlimited
     * @param s3Aggregate S3's aggregate capacity, 0 for none
     * @param stepNanos rate recomputation step, 0 for at every change
     */
    public FluidNetwork(EventQueue events, long[] down, long[] up, long s3Aggregate, long stepNanos) {
        this(events, down, up, s3Aggregate, stepNanos, true);
    }

    /**
     * As above; {@code maxMin} false shares each resource equally among its flows, whatever they get elsewhere
     * (a flow gets the least of its shares and its own cap; what a flow held lower elsewhere leaves is not given
     * to the others), closer to TCP flows behind one queue than max-min.
     */
    public FluidNetwork(EventQueue events, long[] down, long[] up, long s3Aggregate, long stepNanos,
            boolean maxMin) {
        this(events, down, up, s3Aggregate, stepNanos, maxMin, 0);
    }

    /**
     * As above, the nodes sharing {@code hostCores} CPU-seconds per second (0: each node has cores of its own and
     * flows use no CPU).
     */
    @SuppressWarnings("unchecked")
    public FluidNetwork(EventQueue events, long[] down, long[] up, long s3Aggregate, long stepNanos,
            boolean maxMin, double hostCores) {
        if (hostCores < 0) {
            throw new IllegalArgumentException("hostCores must be >= 0, was " + hostCores);
        }
        if (down.length != up.length) {
            throw new IllegalArgumentException("down and up of " + down.length + " and " + up.length + " nodes");
        }
        this.events = events;
        this.nodes = down.length;
        this.host = hostCores > 0 ? 2 * nodes + 1 : -1;
        this.cap = new double[hostCores > 0 ? 2 * nodes + 2 : 2 * nodes + 1];
        for (int i = 0; i < nodes; i++) {
            cap[2 * i] = capOf(up[i]);
            cap[2 * i + 1] = capOf(down[i]);
        }
        cap[2 * nodes] = capOf(s3Aggregate);
        if (host >= 0) {
            cap[host] = hostCores;
        }
        this.rateSum = new double[cap.length];
        this.carried = new double[cap.length];
        this.lastChange = new long[cap.length];
        this.members = new List[cap.length];
        for (int r = 0; r < cap.length; r++) {
            members[r] = new ArrayList<>();
        }
        this.stepNanos = stepNanos;
        this.maxMin = maxMin;
    }

    private static double capOf(long rate) {
        return rate <= 0 ? Double.POSITIVE_INFINITY : rate;
    }

    /** A connection from node {@code from} to node {@code to}; idle until an item is queued. */
    public Flow openPeer(int from, int to, Listener listener) {
        return openPeer(from, to, 0, listener);
    }

    /** As above, each byte costing {@code cpuPerByte} CPU-seconds of the host (ignored without a host CPU). */
    public Flow openPeer(int from, int to, double cpuPerByte, Listener listener) {
        return new Flow(2 * from, 2 * to + 1, false, Double.POSITIVE_INFINITY, cpuOf(cpuPerByte), listener);
    }

    /** An S3 response to node {@code to} at most {@code ownCap} bytes per second (0: no cap of its own). */
    public Flow openS3(int to, double ownCap, Listener listener) {
        return openS3(to, ownCap, 0, listener);
    }

    /** As above, each byte costing {@code cpuPerByte} CPU-seconds of the host (ignored without a host CPU). */
    public Flow openS3(int to, double ownCap, double cpuPerByte, Listener listener) {
        return new Flow(-1, 2 * to + 1, true, ownCap <= 0 ? Double.POSITIVE_INFINITY : ownCap, cpuOf(cpuPerByte),
                listener);
    }

    private double cpuOf(double cpuPerByte) {
        if (cpuPerByte < 0) {
            throw new IllegalArgumentException("cpuPerByte must be >= 0, was " + cpuPerByte);
        }
        return host >= 0 ? cpuPerByte : 0;
    }

    /** Queues {@code bytes} of {@code piece} on {@code flow}, after what it carries. */
    public void enqueue(Flow flow, int piece, long bytes) {
        if (flow.closed) {
            throw new IllegalStateException("flow closed");
        }
        flow.items.addLast(new long[] {piece, bytes});
        if (flow.items.size() == 1) {
            flow.headLeft = bytes;
            flow.since = events.now();
            activate(flow);
        }
    }

    /** Drops {@code piece} from {@code flow} if it has not started; returns whether it did. */
    public boolean cancel(Flow flow, int piece) {
        // headLeft only moves in settle(): bring it up to now, or a head item part-way sent looks unstarted.
        settle(flow);
        if (!flow.hasUnstarted(piece)) {
            return false;
        }
        boolean head = flow.items.peekFirst()[0] == piece;
        if (head) {
            flow.items.pollFirst();
            if (flow.items.isEmpty()) {
                deactivate(flow);
            } else {
                flow.headLeft = flow.items.peekFirst()[1];
                schedule(flow);
            }
            return true;
        }
        for (Iterator<long[]> it = flow.items.iterator(); it.hasNext(); ) {
            if (it.next()[0] == piece) {
                it.remove();
                return true;
            }
        }
        return false;
    }

    /** Stops {@code flow}: what it carries is dropped. */
    public void close(Flow flow) {
        if (flow.closed) {
            return;
        }
        flow.closed = true;
        flow.items.clear();
        if (flow.busy) {
            deactivate(flow);
        }
    }

    /** Recomputations of the rates so far. */
    public long recomputations() {
        return recomputations;
    }

    /** Most flows busy at once. */
    public int peakBusyFlows() {
        return peakBusyFlows;
    }

    /** Bytes node {@code node}'s download has carried so far (wire bytes, S3 and peers). */
    public double downloaded(int node) {
        return carriedNow(2 * node + 1);
    }

    /** Bytes node {@code node}'s upload has carried so far (wire bytes). */
    public double uploaded(int node) {
        return carriedNow(2 * node);
    }

    /** CPU-seconds the flows have used of the host so far (0 without a host CPU). */
    public double hostCpuSeconds() {
        return host >= 0 ? carriedNow(host) : 0;
    }

    private double carriedNow(int r) {
        return carried[r] + rateSum[r] * (events.now() - lastChange[r]) / 1e9;
    }

    /** {@code f}'s rate becomes {@code rate}: its resources' byte counts are brought up to now first. */
    private void setRate(Flow f, double rate) {
        long now = events.now();
        for (int r : resources(f)) {
            if (r < 0) {
                continue;
            }
            carried[r] += rateSum[r] * (now - lastChange[r]) / 1e9;
            lastChange[r] = now;
            rateSum[r] += (rate - f.rate) * weight(f, r);
        }
        f.rate = rate;
    }

    private void activate(Flow f) {
        f.busy = true;
        f.rate = 0;
        f.gen++;
        int k = 0;
        for (int r : resources(f)) {
            f.pos[k++] = members[r].size();
            members[r].add(f);
        }
        busyFlows++;
        peakBusyFlows = Math.max(peakBusyFlows, busyFlows);
        dirty();
    }

    private void deactivate(Flow f) {
        settle(f);
        f.busy = false;
        setRate(f, 0);
        f.gen++;
        int k = 0;
        for (int r : resources(f)) {
            List<Flow> m = members[r];
            int i = f.pos[k];
            Flow last = m.remove(m.size() - 1);
            if (last != f) {
                m.set(i, last);
                last.pos[slotOf(last, r)] = i;
            }
            f.pos[k++] = -1;
        }
        busyFlows--;
        dirty();
    }

    private int slotOf(Flow f, int r) {
        int k = 0;
        for (int x : resources(f)) {
            if (x == r) {
                return k;
            }
            k++;
        }
        throw new AssertionError();
    }

    private int[] resources(Flow f) {
        if (f.cpu > 0) {
            return f.s3 ? new int[] {f.down, 2 * nodes, host} : new int[] {f.up, f.down, host};
        }
        if (f.s3) {
            return new int[] {f.down, 2 * nodes};
        }
        return new int[] {f.up, f.down};
    }

    /** What a byte per second of {@code f} uses of resource {@code r}: 1 on links and S3, its CPU cost on the host. */
    private double weight(Flow f, int r) {
        return r == host ? f.cpu : 1;
    }

    private void settle(Flow f) {
        long now = events.now();
        if (f.busy && now > f.since) {
            f.headLeft = Math.max(0, f.headLeft - f.rate * (now - f.since) / 1e9);
        }
        f.since = now;
    }

    private void dirty() {
        if (recomputeScheduled) {
            return;
        }
        recomputeScheduled = true;
        long now = events.now();
        long at = stepNanos <= 0 ? now : ((now + stepNanos - 1) / stepNanos) * stepNanos;
        events.at(at, this::recompute);
    }

    /** Max-min fair rates by progressive filling; flows whose rate changed get a new completion event. */
    private void recompute() {
        recomputeScheduled = false;
        recomputations++;
        int resourceCount = cap.length;
        double[] rem = new double[resourceCount];
        int[] cnt = new int[resourceCount];
        double[] weights = new double[resourceCount];
        long[] version = new long[resourceCount];
        List<Flow> busy = new ArrayList<>(busyFlows);
        for (int r = 0; r < resourceCount; r++) {
            cnt[r] = members[r].size();
            rem[r] = cap[r];
            if (r == host) {
                for (Flow f : members[r]) {
                    weights[r] += f.cpu;
                }
            } else {
                weights[r] = cnt[r];
            }
        }
        for (int i = 0; i < nodes; i++) {
            busy.addAll(members[2 * i + 1]);
        }
        hostMayBind = host >= 0 && hostMayBind();
        double[] newRate = new double[busy.size()];
        if (!maxMin) {
            for (int i = 0; i < busy.size(); i++) {
                Flow f = busy.get(i);
                double rate = f.ownCap;
                for (int r : resources(f)) {
                    if (r != host || hostMayBind) {
                        rate = Math.min(rate, cap[r] / weights[r]);
                    }
                }
                newRate[i] = rate < Double.POSITIVE_INFINITY ? rate : 1e12;
            }
            apply(busy, newRate);
            return;
        }
        // Heap of {share, kind (0 resource, 1 flow cap), index, version}.
        PriorityQueue<double[]> heap = new PriorityQueue<>((a, b) -> Double.compare(a[0], b[0]));
        for (int r = 0; r < resourceCount; r++) {
            if (cnt[r] > 0 && cap[r] < Double.POSITIVE_INFINITY && (r != host || hostMayBind)) {
                heap.add(new double[] {rem[r] / weights[r], 0, r, 0});
            }
        }
        java.util.IdentityHashMap<Flow, Integer> index = new java.util.IdentityHashMap<>(busy.size() * 2);
        for (int i = 0; i < busy.size(); i++) {
            Flow f = busy.get(i);
            index.put(f, i);
            if (f.ownCap < Double.POSITIVE_INFINITY) {
                heap.add(new double[] {f.ownCap, 1, i, 0});
            }
        }
        int frozen = 0;
        while (!heap.isEmpty() && frozen < busy.size()) {
            double[] e = heap.poll();
            if (e[1] == 1) {
                Flow f = busy.get((int) e[2]);
                if (!f.frozen) {
                    freeze(f, (int) e[2], e[0], newRate, rem, cnt, weights, version, heap);
                    frozen++;
                }
                continue;
            }
            int r = (int) e[2];
            if (e[3] != version[r] || cnt[r] == 0) {
                continue;
            }
            double share = rem[r] / weights[r];
            for (Flow f : new ArrayList<>(members[r])) {
                if (!f.frozen) {
                    freeze(f, index.get(f), share, newRate, rem, cnt, weights, version, heap);
                    frozen++;
                }
            }
        }
        // Flows limited by nothing finite: as fast as a fast LAN.
        for (int i = 0; i < busy.size(); i++) {
            Flow f = busy.get(i);
            if (!f.frozen) {
                newRate[i] = 1e12;
            }
            f.frozen = false;
        }
        apply(busy, newRate);
    }

    /**
     * Whether the host's cores could bind: the CPU its flows would use if each ran as fast as its own cap and its
     * links allowed is more than it has. If not, the host is left out of the filling, so cores to spare change no
     * rate (not even by a rounding that would reorder the events).
     */
    private boolean hostMayBind() {
        double demand = 0;
        for (Flow f : members[host]) {
            double most = Math.min(f.ownCap, Math.min(cap[f.down], f.s3 ? cap[2 * nodes] : cap[f.up]));
            demand += f.cpu * most;
            if (demand > cap[host]) {
                return true;
            }
        }
        return false;
    }

    private void apply(List<Flow> busy, double[] newRate) {
        for (int i = 0; i < busy.size(); i++) {
            Flow f = busy.get(i);
            double nr = newRate[i];
            if (nr != f.rate) {
                settle(f);
                setRate(f, nr);
                schedule(f);
            }
        }
    }

    private void freeze(Flow f, int i, double rate, double[] newRate, double[] rem, int[] cnt, double[] weights,
            long[] version, PriorityQueue<double[]> heap) {
        f.frozen = true;
        newRate[i] = rate;
        for (int r : resources(f)) {
            double w = weight(f, r);
            rem[r] = Math.max(0, rem[r] - rate * w);
            cnt[r]--;
            weights[r] -= w;
            version[r]++;
            if (cnt[r] > 0 && cap[r] < Double.POSITIVE_INFINITY && (r != host || hostMayBind)) {
                heap.add(new double[] {rem[r] / Math.max(weights[r], Double.MIN_NORMAL), 0, r, version[r]});
            }
        }
    }

    private void schedule(Flow f) {
        long gen = ++f.gen;
        if (!f.busy || f.rate <= 0) {
            return;
        }
        long at = events.now() + (long) Math.ceil(f.headLeft / f.rate * 1e9);
        events.at(at, () -> {
            if (f.gen == gen) {
                headDone(f);
            }
        });
    }

    private void headDone(Flow f) {
        settle(f);
        long[] item = f.items.pollFirst();
        if (f.items.isEmpty()) {
            deactivate(f);
        } else {
            f.headLeft = f.items.peekFirst()[1];
            schedule(f);
        }
        f.listener.delivered(f, (int) item[0], item[1]);
        if (f.items.isEmpty() && !f.closed) {
            f.listener.drained(f);
        }
    }
}
