package io.s3broadcast.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.s3broadcast.p2p.cluster.ChaosLyingMember;
import io.s3broadcast.spi.PieceLayout;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A peer that holds the group secret and lies, against honest nodes that must ban it and still publish the exact
 * object: either a stranger ({@link LyingPeer}: in no registry, claims every piece, serves junk under the junk's
 * true CRC32C and vouches for it with {@code DIGESTS}) or a registry member ({@link ChaosLyingMember}, its own
 * JVM: takes its share, reads it from S3, serves it with a byte flipped under consistent lying digests). Each
 * runs on the object with an end-to-end digest (a single-part object: its ETag is the MD5) and, as
 * {@code -no-digest}, on a multipart object whose ETag the nodes cannot check on a server that keeps no
 * checksums, where the spot check against S3 is what is left.
 */
public final class LyingScenario implements ChaosScenario {

    /** The suffix of the variants on the object without an end-to-end digest. */
    public static final String UNDIGESTED = "-no-digest";
    static final int PIECE_SIZE = 256 * 1024;
    static final long RANGE_SIZE = 1L << 20;

    /**
     * The smallest object without an end-to-end digest on which the spot check (2 % of the object in S3 reads,
     * shared by the honest nodes and the lying member) buys every node one whole piece per vouching peer, so a
     * member corrupting every piece it vouches for is caught for certain; below it, only by chance
     * (docs/security.md).
     */
    public static long undigestedMinimum(int nodes) {
        long members = nodes + 1L;
        return (long) Math.ceil(members * (members - 1) * PIECE_SIZE / 0.02);
    }

    private final boolean member;
    private final boolean undigested;

    LyingScenario(boolean member, boolean undigested) {
        this.member = member;
        this.undigested = undigested;
    }

    @Override
    public String name() {
        return (member ? "liar-member" : "liar-stranger") + (undigested ? UNDIGESTED : "");
    }

    @Override
    public String description() {
        return (member ? "a registry member serves junk for its share under consistent lying DIGESTS"
                : "a peer in no registry with the secret claims every piece and serves junk under true CRC32Cs and"
                        + " lying DIGESTS")
                + (undigested ? ", on a multipart object nothing S3 tells can check" : ", on a single-part object (MD5 ETag)");
    }

    @Override
    public ChaosResult run(ChaosContext context) throws Exception {
        if (undigested && context.undigested() == null) {
            throw new IllegalStateException(name() + " needs the context's object without an end-to-end digest");
        }
        ChaosContext c = undigested ? context.on(context.undigested()) : context;
        long start = System.nanoTime();
        String secret = StrangerScenario.randomSecret();
        StringBuilder notes = new StringBuilder();
        try (NodeFleet fleet = c.fleet(name(), c.nodes(), member ? 1 : 0)) {
            fleet.env("S3BROADCAST_SECRET", secret).startAll();
            List<String> names = new ArrayList<>();
            int reached;
            int attempts;
            if (member) {
                int port = fleet.memberPorts().get(0);
                fleet.startMember("liar", ChaosLyingMember.class.getName(), List.of(c.endpoint().toString(),
                        String.valueOf(c.pathStyle()), c.bucket(), c.key(), fleet.registry(), String.valueOf(port),
                        String.valueOf(c.nodes() + 1), String.valueOf(PIECE_SIZE), String.valueOf(RANGE_SIZE)));
                names.add("liar");
                names.add(NodeFleet.LOOPBACK + ":" + port);
                reached = c.nodes(); // a member: every node of the registry connects to it
                attempts = 1;
                notes.append("the liar member's log: ").append(fleet.dir().resolve("liar.err")).append("; ");
            } else {
                names.add("liar-stranger");
                try (LyingPeer liar = LyingPeer.builder()
                        .group(AttackLoop.group(c))
                        .layout(new PieceLayout(c.size(), PIECE_SIZE))
                        .nodeId("liar-stranger")
                        .secret(secret.getBytes(StandardCharsets.UTF_8))
                        .build()) {
                    reached = 0;
                    for (int i = 0; i < c.nodes(); i++) {
                        if (connect(fleet, liar, i)) {
                            reached++;
                        }
                    }
                    attempts = c.nodes();
                    boolean exact = fleet.awaitByteExact(notes);
                    notes.append("liar served ").append(liar.piecesServed()).append(" junk pieces; told ")
                            .append(liar.goodbyes().stream().map(g -> g.reason().name()).toList()).append("; ");
                    return result(c, fleet, names, exact, reached, attempts, start, notes);
                }
            }
            boolean exact = fleet.awaitByteExact(notes);
            return result(c, fleet, names, exact, reached, attempts, start, notes);
        }
    }

    /** Connects the stranger to node {@code i} once it listens; false if it could not (the node is done). */
    private static boolean connect(NodeFleet fleet, LyingPeer liar, int i) throws InterruptedException {
        try {
            fleet.awaitListening(i);
            liar.connect(new InetSocketAddress(NodeFleet.LOOPBACK, fleet.ports().get(i))).get(40, TimeUnit.SECONDS);
            return true;
        } catch (IllegalStateException | java.util.concurrent.ExecutionException
                | java.util.concurrent.TimeoutException e) {
            return false;
        }
    }

    private ChaosResult result(ChaosContext c, NodeFleet fleet, List<String> liarNames, boolean exact, int reached,
            int attempts, long start, StringBuilder notes) throws IOException {
        int bannedBy = 0;
        for (int i = 0; i < c.nodes(); i++) {
            boolean banned = false;
            for (String n : liarNames) {
                banned |= fleet.logLines(i, "banned " + n + ":") + fleet.logLines(i, "banned " + n + " ") > 0;
            }
            bannedBy += banned ? 1 : 0;
        }
        int repaired = 0;
        List<Double> s3 = new ArrayList<>();
        for (JsonNode r : fleet.reports()) {
            repaired += r.path("piecesRepaired").asInt();
            s3.add(Math.round(r.path("bytesFromS3").asDouble() / c.size() * 1000) / 1000.0);
            boolean inResult = false;
            for (JsonNode b : r.path("bannedPeers")) {
                inResult |= liarNames.contains(b.asText());
            }
            if (!inResult) {
                notes.append(r.path("nodeId").asText()).append(" banned the liar after its fetch (while lingering); ");
            }
        }
        return ChaosResult.ofLiar(name(), c.nodes(), c.size(), attempts, exact, fleet.honestConnectionsRefused(liarNames),
                (System.nanoTime() - start) / 1e9, notes.toString(), reached, bannedBy, repaired, s3,
                c.endToEndDigest());
    }
}
