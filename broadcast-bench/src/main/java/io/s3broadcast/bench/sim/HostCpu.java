package io.s3broadcast.bench.sim;

/**
 * What a node's CPU work costs when every node of the fleet runs on one host of {@code cores} cores (the netns fleet:
 * up to 16 node JVMs on the development machine's 2 cores). A node's cold start costs {@link #startSeconds} of CPU
 * before its first GET; then each byte costs CPU where it crosses a node (taken in and passed on), each read call a
 * node makes costs {@link #readSeconds} and a node makes {@link #readsPerLinkSecond} of them for every second's worth
 * of its download link it receives (a read takes what arrived since the last one: more, smaller reads on a slower
 * link), and each piece a node stores costs {@link #pieceSeconds} and {@link #piecePeerSeconds} more per peer it has
 * (its {@code HAVE}s and {@code DIGESTS} out and the peers' handling of them, requests and their answers). After
 * its last piece a node needs {@code --after-last-piece} of CPU on one core, shared with the other nodes ending then
 * ({@link #endsNanos}).
 *
 * <p>The constants are measured on the netns fleet (docs/results.md, session 19, "Where a node's time and CPU go";
 * docs/scale.md, "Simulator" says how each was derived), not fitted to completion times. Not in the model: the bench
 * JVM's CPU (the S3 proxy serving the GETs), a
 * node's CPU while it waits, and the scheduler's fairness between processes: the host is shared max-min fair in bytes
 * per second among the flows ({@link FluidNetwork}).
 *
 * @param cores CPU-seconds per second the host has for all the nodes
 * @param startSeconds CPU-seconds of a node's cold start before its first GET (HEAD, registry, dials, class loading
 *     and JIT of the start), on one core at most
 * @param byteSeconds CPU-seconds per byte a node takes in or passes on
 * @param readSeconds CPU-seconds per read call
 * @param readsPerLinkSecond read calls per second's worth of the node's download link that it receives, on a link of 0
 *     bytes per second (the line's intercept)
 * @param readsPerLinkSecondPerRate how many more per byte per second of the link (the line's slope: a faster link
 *     makes more reads per second's worth of it, each taking less)
 * @param pieceSeconds CPU-seconds per piece a node stores
 * @param piecePeerSeconds CPU-seconds per piece a node stores, per peer it has, on top of {@code pieceSeconds}
 */
public record HostCpu(double cores, double startSeconds, double byteSeconds, double readSeconds,
        double readsPerLinkSecond, double readsPerLinkSecondPerRate, double pieceSeconds, double piecePeerSeconds) {

    private static final double MIB = 1 << 20;

    /** A cold start: 0.55-0.69 CPU-s after the start signal for a 4 MiB object at N = 8, less its data path. */
    public static final double START_SECONDS = 0.5;
    /** Per MiB taken in or passed on: 21.8 ms per MiB of the object at N = 8, 10 MB/s, less reads and pieces. */
    public static final double BYTE_SECONDS = 5.5e-3 / MIB;
    /** Per read call: 1.4-1.9 CPU-s more for 14,395 more read calls at 2.5 MB/s than at 10 MB/s. */
    public static final double READ_SECONDS = 100e-6;
    /**
     * 6,117 reads for 64 MiB at 10 MB/s (911 per link-second), 20,512 at 2.5 MB/s (764): the line through the two,
     * 715 + 19.6 per MB/s of the link (until session 21 one constant, 840, their mean: 8% low at 10 MB/s, 10% high at
     * 2.5 MB/s).
     */
    public static final double READS_PER_LINK_SECOND = 715;
    public static final double READS_PER_LINK_SECOND_PER_RATE = 1.964e-5;
    /**
     * 256 KiB against 1 MiB pieces, 192 more per node: 0.5 CPU-s more per node with 7 peers (2.6 ms per piece), 0.3
     * with 3 (1.56 ms); a line through the two: 0.8 ms per piece and 0.25 ms per peer.
     */
    public static final double PIECE_SECONDS = 0.8e-3;
    public static final double PIECE_PEER_SECONDS = 0.25e-3;

    public HostCpu {
        if (!(cores > 0) || startSeconds < 0 || byteSeconds < 0 || readSeconds < 0 || readsPerLinkSecond < 0
                || readsPerLinkSecondPerRate < 0
                || pieceSeconds < 0 || piecePeerSeconds < 0) {
            throw new IllegalArgumentException("cores must be > 0 and every cost >= 0: " + cores + ", "
                    + startSeconds + ", " + byteSeconds + ", " + readSeconds + ", " + readsPerLinkSecond + ", "
                    + pieceSeconds + ", " + piecePeerSeconds);
        }
    }

    /** As the canonical constructor, read calls per link-second the same on every link. */
    public HostCpu(double cores, double startSeconds, double byteSeconds, double readSeconds,
            double readsPerLinkSecond, double pieceSeconds, double piecePeerSeconds) {
        this(cores, startSeconds, byteSeconds, readSeconds, readsPerLinkSecond, 0, pieceSeconds, piecePeerSeconds);
    }

    /** Read calls per second's worth of a download link of {@code linkDown} bytes per second. */
    public double readsPerLinkSecond(long linkDown) {
        return readsPerLinkSecond + readsPerLinkSecondPerRate * linkDown;
    }

    /** {@code cores} shared, with the measured costs. */
    public static HostCpu measured(double cores) {
        return new HostCpu(cores, START_SECONDS, BYTE_SECONDS, READ_SECONDS, READS_PER_LINK_SECOND,
                READS_PER_LINK_SECOND_PER_RATE, PIECE_SECONDS,
                PIECE_PEER_SECONDS);
    }

    /**
     * When {@code nodes} nodes that start together reach their first GET: each start's CPU on at most one core, the
     * starts sharing the cores equally (they are alike, so they end together, before any flow begins), and never
     * before {@code fixedStart} (what the start waits for besides CPU).
     */
    public long startNanos(int nodes, long fixedStart) {
        double seconds = startSeconds * Math.max(1.0, nodes / cores);
        return Math.max(fixedStart, Math.round(seconds * 1e9));
    }

    /**
     * CPU-seconds per byte a node takes in, from S3 or a peer: the byte itself, its share of read calls on a download
     * link of {@code linkDown} bytes per second (0: unlimited, read calls not counted) and its share of the piece's
     * cost, for a node with {@code peers} peers and pieces of {@code pieceSize} bytes.
     */
    public double takenIn(long linkDown, int peers, int pieceSize) {
        double reads = linkDown > 0 ? readSeconds * readsPerLinkSecond(linkDown) / linkDown : 0;
        return byteSeconds + reads + (pieceSeconds + piecePeerSeconds * peers) / pieceSize;
    }

    /** CPU-seconds per byte a node passes on to a peer. */
    public double passedOn() {
        return byteSeconds;
    }

    /**
     * When each node's work after its last piece ends (checks, fsync, rename, and the JVM's own work then), nanoseconds:
     * each node needs {@code workSeconds} CPU-seconds on at most one core from its last piece at {@code lastPiece[i]}
     * (negative: never; the result is then negative too), and the nodes whose ends overlap share the cores equally
     * (processor sharing: k ends at once run at min(1, cores / k) each). As the starts, only the nodes' ends compete
     * here; flows still running when a node ends are not counted against it. The fleet measured 0.06-0.2 s after the
     * last piece where its cores were not busy, 0.3-0.45 s with 8 node JVMs ending together on 2 cores and 0.7-0.9 s
     * with 16 (docs/results.md, session 19): about 0.1 CPU-s each.
     */
    public long[] endsNanos(long[] lastPiece, double workSeconds) {
        int n = lastPiece.length;
        long[] end = new long[n];
        Integer[] order = new Integer[n];
        int m = 0;
        for (int i = 0; i < n; i++) {
            end[i] = -1;
            if (lastPiece[i] >= 0) {
                order[m++] = i;
            }
        }
        java.util.Arrays.sort(order, 0, m, (a, b) -> Long.compare(lastPiece[a], lastPiece[b]));
        if (workSeconds <= 0) {
            for (int k = 0; k < m; k++) {
                end[order[k]] = lastPiece[order[k]];
            }
            return end;
        }
        // Equal work at equal rates: ends come in the order of the last pieces. v is the service every running end has
        // had since the first began (CPU-seconds); an end that began at service b is done at service b + work.
        double[] began = new double[m];
        double t = lastPiece[order[0]] / 1e9;
        double v = 0;
        int next = 0;
        int done = 0;
        while (done < m) {
            int running = next - done;
            double rate = running == 0 ? 0 : Math.min(1.0, cores / running);
            double nextArrival = next < m ? lastPiece[order[next]] / 1e9 : Double.POSITIVE_INFINITY;
            double nextEnd = running == 0 ? Double.POSITIVE_INFINITY : t + (began[done] + workSeconds - v) / rate;
            if (nextArrival <= nextEnd) {
                v += rate * (nextArrival - t);
                t = nextArrival;
                began[next++] = v;
            } else {
                v = began[done] + workSeconds;
                t = nextEnd;
                end[order[done++]] = Math.round(t * 1e9);
            }
        }
        return end;
    }
}
