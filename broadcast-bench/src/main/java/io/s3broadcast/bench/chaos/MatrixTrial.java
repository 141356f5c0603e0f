package io.s3broadcast.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.s3broadcast.bench.Json;
import io.s3broadcast.bench.NodeCommand;
import io.s3broadcast.bench.Sha256;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One trial of a fault case: a fresh fleet of honest node processes reading S3 through the matrix's fault proxy,
 * each on a port of its own (so the bytes each one read are counted), the fault's moment, and what each node ended
 * with.
 */
final class MatrixTrial implements AutoCloseable {

    private static final Pattern KIND = Pattern.compile("^([\\w.$]+)(?::|$)");

    final FaultMatrix matrix;
    final ChaosContext context;
    final NodeFleet fleet;
    final Random random;
    final String secret = StrangerScenario.randomSecret();
    private final Set<Integer> killed = new HashSet<>();
    private final Set<Integer> restarted = new HashSet<>();
    private final java.util.concurrent.CompletableFuture<?>[] exits;
    private final long[] exitEpochMillis;
    private final Map<Integer, Long> s3BytesBeforeRestart = new TreeMap<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    /**
     * The object's other version when the case replaced it (its SHA-256): a node that started on it and published it
     * whole is as exact as one that published the first.
     */
    volatile String replacementSha256;
    /** When the fault struck (epoch millis); null: from the start (measured from each node's fetch). */
    volatile Long faultEpochMillis;
    final Map<String, Long> counts = new TreeMap<>();
    final StringBuilder notes = new StringBuilder();
    /** Per node: when its latest process started (a restart gets the whole node timeout too). */
    private long[] startedNanos;

    /** Each node's S3 port's byte count when this trial began. */
    private final long[] s3BytesBefore;

    MatrixTrial(FaultMatrix matrix, ChaosContext context, FaultCase c, int index, long seed) throws IOException {
        this.matrix = matrix;
        this.context = context;
        // Scrambled: java.util.Random's first draws from nearby seeds are alike (every trial would cut node-1).
        this.random = new Random(new java.util.SplittableRandom(seed).nextLong());
        this.fleet = context.fleet(c.name() + "/trial-" + index, context.nodes(), c.otherMembers());
        this.exitEpochMillis = new long[context.nodes()];
        this.exits = new java.util.concurrent.CompletableFuture<?>[context.nodes()];
        fleet.env("S3BROADCAST_SECRET", secret).linger(matrix.linger());
        this.s3BytesBefore = new long[context.nodes()];
        for (int i = 0; i < context.nodes(); i++) {
            fleet.endpoint(i, matrix.s3Port("node-" + i));
            // The matrix's S3 ports and their byte counts outlive a trial: earlier cases counted on them too.
            s3BytesBefore[i] = matrix.s3Bytes("node-" + i);
        }
    }

    int nodes() {
        return context.nodes();
    }

    /** Closed with the trial (relays, adversaries). */
    <T extends AutoCloseable> T closeLater(T c) {
        closeables.add(c);
        return c;
    }

    void count(String what, long n) {
        counts.merge(what, n, Long::sum);
    }

    void startAll() throws IOException {
        startedNanos = new long[nodes()];
        for (int i = 0; i < nodes(); i++) {
            start(i);
        }
    }

    private void start(int i) throws IOException {
        fleet.start(i);
        startedNanos[i] = System.nanoTime();
        exits[i] = fleet.process(i).onExit().thenRun(() -> exitEpochMillis[i] = System.currentTimeMillis());
    }

    /** Waits until the first ranged GET of this trial reached the proxy: the nodes are fetching. */
    void awaitFetching() throws InterruptedException {
        CountDownLatch first = matrix.firstGet();
        if (!first.await(60, TimeUnit.SECONDS)) {
            notes.append("no GET reached S3 within 60 s; ");
        }
    }

    /**
     * Waits until node {@code i} has read at least {@code minBytes} of response bytes from S3 through its own port in
     * this trial (the port outlives it)
     * (more than a HEAD's response: its metadata is known and a body is flowing), or 60 s. A fault meant to strike
     * "mid-run" for that node must not strike before its first HEAD has returned: a node that never reached S3
     * cannot know the object, and fails by design.
     */
    void awaitS3Bytes(int i, long minBytes) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (matrix.s3Bytes("node-" + i) - s3BytesBefore[i] < minBytes) {
            if (System.nanoTime() > deadline) {
                notes.append("node-").append(i).append(" read under ").append(minBytes)
                        .append(" bytes from S3 within 60 s; ");
                return;
            }
            Thread.sleep(20); // polls the proxy's byte count of another process's traffic
        }
    }

    /** Waits a random time up to {@code maxMillis}: the fault's moment (not a synchronisation). */
    void randomPause(long maxMillis) throws InterruptedException {
        Thread.sleep((long) (random.nextDouble() * maxMillis));
    }

    void faultNow() {
        if (faultEpochMillis == null) {
            faultEpochMillis = System.currentTimeMillis();
        }
    }

    /** kill -9 of node {@code i}'s process; true if it was still running. */
    boolean kill(int i) throws InterruptedException {
        Process p = fleet.process(i);
        boolean alive = p.isAlive();
        faultNow();
        p.destroyForcibly(); // SIGKILL
        p.waitFor(30, TimeUnit.SECONDS);
        killed.add(i);
        if (!alive) {
            notes.append("node-").append(i).append(" had exited before its kill; ");
        }
        return alive;
    }

    /** Starts node {@code i} again, same destination, port and id, reading S3 on a port of its own. */
    void restart(int i) throws IOException {
        String label = "restart-" + i;
        URI port = matrix.s3Port(label);
        s3BytesBeforeRestart.put(i, matrix.s3Bytes(label));
        fleet.endpoint(i, port);
        restarted.add(i);
        start(i);
    }

    boolean killedForGood(int i) {
        return killed.contains(i) && !restarted.contains(i);
    }

    /** Waits for every node (the node timeout from the trial's start), killing the ones that hang. */
    List<NodeOutcome> await(FaultCase c) throws InterruptedException, IOException {
        boolean[] hung = new boolean[nodes()];
        for (int i = 0; i < nodes(); i++) {
            long deadline = startedNanos[i] + context.nodeTimeout().toNanos();
            Process p = fleet.process(i);
            long left = Math.max(0, deadline - System.nanoTime());
            if (!p.waitFor(left, TimeUnit.NANOSECONDS)) {
                hung[i] = true;
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
            }
            try {
                exits[i].get(30, TimeUnit.SECONDS); // its exit time is recorded
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                notes.append("node-").append(i).append("'s exit time is unknown; ");
            }
        }
        List<NodeOutcome> outcomes = new ArrayList<>();
        for (int i = 0; i < nodes(); i++) {
            outcomes.add(outcome(c, i, hung[i]));
        }
        return outcomes;
    }

    private NodeOutcome outcome(FaultCase c, int i, boolean hung) throws IOException {
        JsonNode json = killedForGood(i) ? null : Json.lastLine(fleet.dir().resolve(fleet.logName(i) + ".out"));
        String error = json == null ? null : json.path("error").isNull() ? null : json.path("error").asText(null);
        String status;
        if (killedForGood(i)) {
            status = "killed";
        } else if (hung) {
            status = "hung";
        } else if (json == null) {
            status = "no-result";
            error = "exit " + fleet.process(i).exitValue() + " without a result line";
        } else if (error != null) {
            status = "failed";
        } else {
            status = exactSha(json.path("sha256").asText()) ? "completed" : "failed";
            if (status.equals("completed") && !context.sha256().equals(json.path("sha256").asText())) {
                count("completedOnTheReplacement", 1);
            }
            error = status.equals("failed") ? "reported SHA-256 " + json.path("sha256").asText() : null;
        }
        String kind = status.equals("hung") ? "hung" : error == null ? null : kind(status, error);
        Path out = fleet.out(i);
        Path dest = out.resolve(NodeCommand.fileName(context.key()));
        String destination = destination(dest);
        List<String> leftovers = new ArrayList<>();
        if (Files.isDirectory(out)) {
            try (Stream<Path> files = Files.walk(out)) {
                Path record = out.resolve("." + dest.getFileName() + ".s3broadcast"); // the library's record of a fetch
                files.filter(Files::isRegularFile).filter(f -> !f.equals(dest) && !f.equals(record))
                        .forEach(f -> leftovers.add(out.relativize(f).toString()));
            }
        }
        Double detect = null;
        Double doneAfter = null;
        if (status.equals("failed") || status.equals("no-result")) {
            long from = faultEpochMillis != null ? faultEpochMillis
                    : json != null ? json.path("process").path("startEpochMillis").asLong(0) : 0;
            long to = exitEpochMillis[i];
            detect = from > 0 && to > 0 ? Math.max(0, to - from) / 1e3 : null;
        } else if (status.equals("completed") && faultEpochMillis != null) {
            long done = json.path("process").path("doneEpochMillis").asLong(0);
            doneAfter = done > 0 ? (done - faultEpochMillis) / 1e3 : null;
        }
        Long s3After = restarted.contains(i) ? matrix.s3Bytes("restart-" + i) - s3BytesBeforeRestart.get(i) : null;
        boolean could = c.canComplete(this, i);
        return new NodeOutcome(status, kind, error, could, destination, leftovers, detect, doneAfter, s3After);
    }

    /** The kind of an error line: the exception's simple name ({@code ObjectChanged}, {@code SdkClientException}). */
    static String kind(String status, String error) {
        Matcher m = KIND.matcher(error);
        if (!status.equals("failed") || !m.find()) {
            return status;
        }
        String name = m.group(1);
        return name.substring(Math.max(name.lastIndexOf('.'), name.lastIndexOf('$')) + 1);
    }

    private String destination(Path dest) throws IOException {
        if (!Files.exists(dest)) {
            return "absent";
        }
        if (Files.size(dest) != context.size()) {
            return "partial";
        }
        return exactSha(Sha256.of(dest)) ? "exact" : "wrong";
    }

    private boolean exactSha(String sha) {
        return context.sha256().equals(sha) || (replacementSha256 != null && replacementSha256.equals(sha));
    }

    @Override
    public void close() {
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception e) {
                notes.append("closing ").append(c).append(": ").append(e).append("; ");
            }
        }
        fleet.close();
    }
}
