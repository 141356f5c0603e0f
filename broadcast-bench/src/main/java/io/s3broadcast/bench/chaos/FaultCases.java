package io.s3broadcast.bench.chaos;

import io.s3broadcast.p2p.cluster.ChaosLyingMember;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.testkit.proxy.Fault;
import io.s3broadcast.testkit.proxy.Rule;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** The cases of the fault matrix (docs/reliability.md, "Fault matrix"). */
public final class FaultCases {

    /** How long after the first GET of a trial a mid-run fault may strike, at most. */
    static final long WINDOW_MILLIS = 1500;
    /** Where in a ranged GET's body the S3 body faults strike. */
    static final long BODY_OFFSET = 300_000;

    private FaultCases() {
    }

    /** kill -9 of {@code fraction} of the nodes at random moments; with {@code restart}, half of them started again. */
    public static FaultCase kill(double fraction, boolean restart) {
        return new Kill(fraction, restart);
    }

    /** The S3 faults at {@code rate} per ranged GET, one case per kind. */
    public static List<FaultCase> s3Faults(double rate) {
        return List.of(
                new S3(rate, "s3-slowdown-bursts", "bursts of 5 consecutive 503 SlowDown", null),
                new S3(rate, "s3-reset-mid-body", "connection reset after " + BODY_OFFSET + " body bytes",
                        Fault.resetAfter(BODY_OFFSET)),
                new S3(rate, "s3-stalled-body", "the body stops after " + BODY_OFFSET + " bytes, connection held open",
                        Fault.stallAfter(BODY_OFFSET)),
                new S3(rate, "s3-truncated-body", "clean close after " + BODY_OFFSET + " bytes of a body whose headers"
                        + " announce it whole", Fault.truncateAfter(BODY_OFFSET)),
                new S3(rate, "s3-slow-first-byte", "the response head held back 5 s",
                        Fault.stallInHead(0, Duration.ofSeconds(5))));
    }

    /** {@code count} peers with the secret whose bitfield claims every piece and which answer no request. */
    public static FaultCase lyingBitfield(int count) {
        return new LyingBitfield(count);
    }

    /**
     * {@code count} registry members that each corrupt as many of the pieces they vouch for as 1 % of the object's
     * pieces (at least one), under matching CRC and digests.
     */
    public static FaultCase corruptMembers(int count) {
        return new CorruptMembers(count);
    }

    /** A stranger without the secret dialling every node throughout (the {@code stranger} scenario's adversary). */
    public static FaultCase stranger() {
        return new Stranger();
    }

    /** One node cut off from its peers (reaching S3), and one cut off from S3 (reaching its peers). */
    public static List<FaultCase> partitions() {
        return List.of(new PartitionPeers(), new PartitionS3());
    }

    /** The object overwritten in S3 mid-run. */
    public static FaultCase replaceObject(URI s3, java.util.Map<String, String> credentials, boolean pathStyle) {
        return new ReplaceObject(s3, credentials, pathStyle);
    }

    /** Every request answered 403 AccessDenied, as for credentials whose policy denies GetObject. */
    public static FaultCase denyAccess() {
        return new DenyAccess();
    }

    private static final class Kill implements FaultCase {
        private final double fraction;
        private final boolean restart;

        Kill(double fraction, boolean restart) {
            this.fraction = fraction;
            this.restart = restart;
        }

        @Override
        public String name() {
            return restart ? "kill-restart" : "kill";
        }

        @Override
        public String description() {
            return "kill -9 of " + fraction + " of the nodes at random moments mid-run"
                    + (restart ? "; half of them started again (same destination, port and id)" : "");
        }

        @Override
        public void inject(MatrixTrial t) throws Exception {
            int k = Math.max(1, (int) Math.round(t.nodes() * fraction));
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < t.nodes(); i++) {
                order.add(i);
            }
            Collections.shuffle(order, t.random);
            List<Integer> victims = order.subList(0, k);
            int restarts = restart ? (k + 1) / 2 : 0;
            t.awaitFetching();
            long[] at = new long[k];
            for (int v = 0; v < k; v++) {
                at[v] = (long) (t.random.nextDouble() * WINDOW_MILLIS);
            }
            java.util.Arrays.sort(at);
            long begin = System.nanoTime();
            for (int v = 0; v < k; v++) {
                long wait = at[v] - (System.nanoTime() - begin) / 1_000_000;
                if (wait > 0) {
                    Thread.sleep(wait); // the kill's random moment
                }
                int victim = victims.get(v);
                t.count(t.kill(victim) ? "killedMidRun" : "killedAfterExit", 1);
                if (v < restarts) {
                    t.restart(victim);
                }
            }
        }
    }

    private static final class S3 implements FaultCase {
        private final double rate;
        private final String name;
        private final String what;
        private final Fault fault;
        private Rule rule;

        S3(double rate, String name, String what, Fault fault) {
            this.rate = rate;
            this.name = name;
            this.what = what;
            this.fault = fault;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String description() {
            return what + ", on " + rate + " of the ranged GETs";
        }

        @Override
        public void prepare(MatrixTrial t) {
            Rule.Builder b = Rule.forGets().withRange();
            long seed = t.random.nextLong();
            if (fault == null) {
                rule = t.matrix.proxy().add(b.where(new Bursts(rate, 5, seed)).always().inject(Fault.slowDown()));
            } else {
                rule = t.matrix.proxy().add(b.withProbability(rate, seed).inject(fault));
            }
        }

        @Override
        public void inject(MatrixTrial t) {
            // the rule strikes on its own
        }

        @Override
        public void finish(MatrixTrial t) {
            t.count("faultsInjected", rule.injected());
        }
    }

    /** Starts a burst of {@code length} requests with probability {@code rate} per request. */
    private static final class Bursts implements Predicate<io.s3broadcast.testkit.proxy.RequestHead> {
        private final double rate;
        private final int length;
        private final Random random;
        private int left;

        Bursts(double rate, int length, long seed) {
            this.rate = rate;
            this.length = length;
            this.random = new Random(seed);
        }

        @Override
        public synchronized boolean test(io.s3broadcast.testkit.proxy.RequestHead head) {
            if (left == 0 && random.nextDouble() < rate) {
                left = length;
            }
            if (left > 0) {
                left--;
                return true;
            }
            return false;
        }

        @Override
        public String toString() {
            return "bursts of " + length + " at " + rate;
        }
    }

    private static final class LyingBitfield implements FaultCase {
        private final int count;
        private List<LyingPeer> liars = List.of();

        LyingBitfield(int count) {
            this.count = count;
        }

        @Override
        public String name() {
            return "lying-bitfield";
        }

        @Override
        public String description() {
            return count + " peer(s) with the secret claiming every piece and answering no request";
        }

        @Override
        public void inject(MatrixTrial t) throws Exception {
            ChaosContext c = t.context;
            liars = new ArrayList<>();
            for (int l = 0; l < count; l++) {
                liars.add(t.closeLater(LyingPeer.builder().group(AttackLoop.group(c))
                        .layout(new PieceLayout(c.size(), LyingScenario.PIECE_SIZE)).nodeId("liar-" + l)
                        .secret(t.secret.getBytes(StandardCharsets.UTF_8)).lieInDigests(false).silent(true).build()));
            }
            int reached = 0;
            for (int i = 0; i < t.nodes(); i++) {
                try {
                    t.fleet.awaitListening(i);
                } catch (IllegalStateException e) {
                    continue;
                }
                for (LyingPeer liar : liars) {
                    try {
                        liar.connect(new InetSocketAddress(NodeFleet.LOOPBACK, t.fleet.ports().get(i)))
                                .get(40, TimeUnit.SECONDS);
                        reached++;
                    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                        // the node is done or refused it
                    }
                }
            }
            t.count("liarConnections", reached);
            t.faultNow();
        }

        /** After the nodes ended (the trial closes the liars later). */
        @Override
        public void finish(MatrixTrial t) {
            for (LyingPeer liar : liars) {
                t.count("requestsIgnoredByLiars", liar.requestsIgnored());
            }
        }
    }

    private static final class CorruptMembers implements FaultCase {
        private final int count;

        CorruptMembers(int count) {
            this.count = count;
        }

        @Override
        public String name() {
            return "corrupt-member";
        }

        @Override
        public String description() {
            return count + " registry member(s) with the secret, each corrupting as many of the pieces it vouches for"
                    + " as 1% of the object's pieces (at least one) under matching CRC32C and digests";
        }

        @Override
        public int otherMembers() {
            return count;
        }

        @Override
        public void inject(MatrixTrial t) throws Exception {
            ChaosContext c = t.context;
            int pieces = new PieceLayout(c.size(), LyingScenario.PIECE_SIZE).pieceCount();
            int corrupt = Math.max(1, (int) Math.round(pieces * 0.01));
            for (int m = 0; m < count; m++) {
                int port = t.fleet.memberPorts().get(m);
                t.fleet.startMember("corrupt-" + m, ChaosLyingMember.class.getName(), List.of(t.matrix.s3Port("members")
                        .toString(), String.valueOf(c.pathStyle()), c.bucket(), c.key(), t.fleet.registry(),
                        String.valueOf(port), String.valueOf(t.nodes() + count), String.valueOf(LyingScenario.PIECE_SIZE),
                        String.valueOf(LyingScenario.RANGE_SIZE), String.valueOf(corrupt)));
            }
            t.count("corruptPiecesPerMember", corrupt);
            t.faultNow();
        }

        @Override
        public void finish(MatrixTrial t) throws Exception {
            long banned = 0;
            for (int i = 0; i < t.nodes(); i++) {
                banned += t.fleet.logLines(i, "banned") > 0 ? 1 : 0;
            }
            t.count("nodesThatBanned", banned);
        }
    }

    private static final class Stranger implements FaultCase {
        @Override
        public String name() {
            return "stranger";
        }

        @Override
        public String description() {
            return "a peer without the secret dials every node throughout and asks for every piece";
        }

        @Override
        public void inject(MatrixTrial t) throws Exception {
            int[] n = {0};
            ChaosContext c = t.context;
            AttackLoop loop = AttackLoop.run(t.fleet, c.nodeTimeout(), () -> new Adversary(AttackLoop.group(c), c.size(),
                    LyingScenario.PIECE_SIZE, null, n[0]++ % 2 == 0, null));
            t.count("strangerAttempts", loop.attempts);
            t.count("strangerObjectBytes", loop.objectBytes);
            t.count("strangerBitfields", loop.bitfields);
            t.count("strangerMetadata", loop.metadata);
        }
    }

    /** Relays in front of every node's peer port; the registry lists the relays. */
    private static List<CuttableRelay> relayPeers(MatrixTrial t) throws java.io.IOException {
        List<Integer> listen = t.fleet.ports();
        List<CuttableRelay> relays = new ArrayList<>();
        for (int port : listen) {
            relays.add(t.closeLater(CuttableRelay.start(new InetSocketAddress(NodeFleet.LOOPBACK, port), List.of())));
        }
        List<String> ids = relays.stream().map(r -> NodeInfo.idFor(NodeFleet.LOOPBACK, r.port())).toList();
        relays.forEach(r -> r.tags(ids));
        return relays;
    }

    private static final class PartitionPeers implements FaultCase {
        private List<CuttableRelay> relays;

        @Override
        public String name() {
            return "partition-peers";
        }

        @Override
        public String description() {
            return "one node's peer traffic blackholed at a random moment mid-run; it still reaches S3";
        }

        @Override
        public void prepare(MatrixTrial t) throws Exception {
            relays = relayPeers(t);
            t.fleet.advertise(relays.stream().map(CuttableRelay::port).toList());
        }

        @Override
        public void inject(MatrixTrial t) throws Exception {
            int victim = t.random.nextInt(t.nodes());
            t.awaitFetching();
            t.randomPause(WINDOW_MILLIS);
            String id = NodeInfo.idFor(NodeFleet.LOOPBACK, relays.get(victim).port());
            for (int i = 0; i < relays.size(); i++) {
                if (i == victim) {
                    relays.get(i).cutAll();
                } else {
                    relays.get(i).cut(id::equals);
                }
            }
            t.faultNow();
            t.notes.append("node-").append(victim).append(" cut off from its peers; ");
        }
    }

    private static final class PartitionS3 implements FaultCase {
        private CuttableRelay relay;
        private int victim;

        @Override
        public String name() {
            return "partition-s3";
        }

        @Override
        public String description() {
            return "one node's S3 traffic blackholed at a random moment after its first reads from S3; it still reaches"
                    + " its peers";
        }

        @Override
        public void prepare(MatrixTrial t) throws Exception {
            victim = t.random.nextInt(t.nodes());
            URI port = t.matrix.s3Port("node-" + victim);
            relay = t.closeLater(CuttableRelay.start(new InetSocketAddress(port.getHost(), port.getPort()), List.of()));
            t.fleet.endpoint(victim, URI.create("http://" + NodeFleet.LOOPBACK + ":" + relay.port()));
        }

        @Override
        public void inject(MatrixTrial t) throws Exception {
            t.awaitFetching();
            t.awaitS3Bytes(victim, 64 * 1024);
            t.randomPause(WINDOW_MILLIS);
            relay.cutAll();
            t.faultNow();
            t.notes.append("node-").append(victim).append(" cut off from S3; ");
        }
    }

    private static final class ReplaceObject implements FaultCase {
        private final URI s3;
        private final java.util.Map<String, String> credentials;
        private final boolean pathStyle;

        ReplaceObject(URI s3, java.util.Map<String, String> credentials, boolean pathStyle) {
            this.s3 = s3;
            this.credentials = credentials;
            this.pathStyle = pathStyle;
        }

        @Override
        public String name() {
            return "replace-object";
        }

        @Override
        public String description() {
            return "the object overwritten in S3 at a random moment mid-run";
        }

        private S3Client client(ChaosContext c) {
            return S3Client.builder().endpointOverride(s3).forcePathStyle(pathStyle)
                    .region(software.amazon.awssdk.regions.Region.of(c.region()))
                    .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                            software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
                                    credentials.get("AWS_ACCESS_KEY_ID"), credentials.get("AWS_SECRET_ACCESS_KEY"))))
                    .build();
        }

        @Override
        public ChaosContext context(ChaosContext m, int trial) {
            String key = "replace/trial-" + trial + "-" + System.nanoTime() + ".bin";
            try (S3Client client = client(m)) {
                String eTag = client.copyObject(b -> b.sourceBucket(m.bucket()).sourceKey(m.key())
                        .destinationBucket(m.bucket()).destinationKey(key)).copyObjectResult().eTag();
                return m.on(new ChaosObject(m.bucket(), key, eTag, m.size(), m.sha256()));
            }
        }

        @Override
        public boolean canComplete(MatrixTrial t, int i) {
            return false;
        }

        @Override
        public void inject(MatrixTrial t) throws Exception {
            byte[] other = new byte[(int) t.context.size()];
            t.random.nextBytes(other);
            t.replacementSha256 = java.util.HexFormat.of().formatHex(
                    java.security.MessageDigest.getInstance("SHA-256").digest(other));
            t.awaitFetching();
            t.randomPause(WINDOW_MILLIS / 3);
            try (S3Client client = client(t.context)) {
                String eTag = client.putObject(b -> b.bucket(t.context.bucket()).key(t.context.key()),
                        RequestBody.fromBytes(other)).eTag();
                t.faultNow();
                t.notes.append("ETag ").append(t.context.eTag()).append(" -> ").append(eTag).append("; ");
            }
        }
    }

    private static final class DenyAccess implements FaultCase {
        @Override
        public String name() {
            return "deny-access";
        }

        @Override
        public String description() {
            return "every request answered 403 AccessDenied (credentials whose policy denies GetObject)";
        }

        @Override
        public void prepare(MatrixTrial t) {
            t.matrix.proxy().add(Rule.forRequests().always().inject(Fault.status(403, "AccessDenied", "Access Denied")));
        }

        @Override
        public boolean canComplete(MatrixTrial t, int i) {
            return false;
        }

        @Override
        public void inject(MatrixTrial t) {
            // from the start; the time to detect runs from each node's fetch
        }
    }
}
