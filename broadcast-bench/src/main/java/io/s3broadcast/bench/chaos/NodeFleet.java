package io.s3broadcast.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.s3broadcast.bench.Json;
import io.s3broadcast.testkit.FreePorts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Honest {@code node} processes of one scenario, one JVM each, in a static registry of free loopback ports. The
 * group secret goes in through {@code S3BROADCAST_SECRET}, as an operator would pass it.
 */
public final class NodeFleet implements AutoCloseable {

    static final String LOOPBACK = "127.0.0.1";

    private final ChaosContext context;
    private final Path dir;
    private final List<Integer> ports;
    private final Process[] processes;
    private final Map<String, String> env = new HashMap<>();
    private final List<String> extraArgs = new ArrayList<>();
    /** Registry members that are not honest nodes (a lying member), after the honest nodes' ports. */
    private final List<Integer> memberPorts;
    private final List<Process> members = new ArrayList<>();
    private final List<JsonNode> reports = new ArrayList<>();
    /** Per node: the S3 endpoint it reads from, when not the context's (a cuttable relay). */
    private final Map<Integer, java.net.URI> endpoints = new HashMap<>();
    /** The ports the registry lists instead of the listen ports (relays in front of the nodes), or null. */
    private List<Integer> advertised;
    private String linger = "10s";
    /** Per node: how often it was started (a restart writes its logs under another name). */
    private final int[] runs;

    NodeFleet(ChaosContext context, Path dir, int nodes, int otherMembers) throws IOException {
        this.context = context;
        this.dir = Files.createDirectories(dir);
        List<Integer> all = FreePorts.loopback(nodes + otherMembers);
        this.ports = all.subList(0, nodes);
        this.memberPorts = all.subList(nodes, all.size());
        this.processes = new Process[nodes];
        this.runs = new int[nodes];
    }

    /** Node {@code i} reads from {@code endpoint} instead of the context's S3 endpoint. */
    public NodeFleet endpoint(int i, java.net.URI endpoint) {
        endpoints.put(i, endpoint);
        return this;
    }

    /**
     * The registry lists {@code ports} (one per honest node, e.g. relays in front of them) instead of the ports the
     * nodes listen on; each node registers with its entry's id.
     */
    public NodeFleet advertise(List<Integer> ports) {
        if (ports.size() != this.ports.size() || !memberPorts.isEmpty()) {
            throw new IllegalArgumentException("one advertised port per honest node and no other member");
        }
        this.advertised = List.copyOf(ports);
        return this;
    }

    /** How long a node that is done serves the others (default 10 s). */
    public NodeFleet linger(String duration) {
        this.linger = duration;
        return this;
    }

    /** Node {@code i}'s process of its latest start, or null. */
    public Process process(int i) {
        return processes[i];
    }

    /** Node {@code i}'s destination directory. */
    public Path out(int i) {
        return dir.resolve("node-" + i);
    }

    /** The base name of node {@code i}'s logs of its latest start ({@code node-i}, then {@code node-i.run2}, ...). */
    public String logName(int i) {
        return "node-" + i + (runs[i] > 1 ? ".run" + runs[i] : "");
    }

    /** Sets an environment variable of every node started after this, e.g. the secret. */
    public NodeFleet env(String name, String value) {
        env.put(name, value);
        return this;
    }

    /** Adds {@code node} arguments for every node started after this, e.g. TLS files. */
    public NodeFleet args(String... args) {
        extraArgs.addAll(List.of(args));
        return this;
    }

    /** The honest nodes' peer ports. */
    public List<Integer> ports() {
        return ports;
    }

    /** The peer ports of the registry's other members, which no honest node process listens on. */
    public List<Integer> memberPorts() {
        return memberPorts;
    }

    /** The static registry of every member: honest nodes first. */
    public String registry() {
        return "static:" + java.util.stream.Stream.concat((advertised != null ? advertised : ports).stream(),
                        memberPorts.stream())
                .map(p -> LOOPBACK + ":" + p).collect(Collectors.joining(","));
    }

    /**
     * Starts another registry member as its own JVM: {@code mainClass} with {@code args}, on the classpath of the
     * node processes, with their environment (S3 credentials, the secret); its output goes to {@code name.out}
     * and {@code name.err}. It is ended with the fleet.
     */
    public void startMember(String name, String mainClass, List<String> args) throws IOException {
        List<String> command = new ArrayList<>(context.command());
        command.set(command.size() - 1, mainClass);
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectOutput(dir.resolve(name + ".out").toFile())
                .redirectError(dir.resolve(name + ".err").toFile());
        environment(pb.environment());
        members.add(pb.start());
    }

    private void environment(Map<String, String> e) {
        e.keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("S3BROADCAST_"));
        e.putAll(context.credentials());
        e.put("S3BROADCAST_HANDSHAKE_TIMEOUT", context.handshakeTimeout().toMillis() + "ms");
        e.putAll(env);
    }

    public Path dir() {
        return dir;
    }

    /** Starts every node not started yet. */
    public NodeFleet startAll() throws IOException {
        for (int i = 0; i < processes.length; i++) {
            if (processes[i] == null) {
                start(i);
            }
        }
        return this;
    }

    /** Starts node {@code i}. */
    public void start(int i) throws IOException {
        String registry = registry();
        int port = ports.get(i);
        List<String> command = new ArrayList<>(context.command());
        String nodeId = advertised != null ? io.s3broadcast.registry.NodeInfo.idFor(LOOPBACK, advertised.get(i))
                : "node-" + i;
        command.addAll(List.of("node",
                "--endpoint", endpoints.getOrDefault(i, context.endpoint()).toString(),
                "--path-style", String.valueOf(context.pathStyle()),
                "--bucket", context.bucket(), "--key", context.key(), "--out", out(i).toString(),
                "--registry", registry, "--listen", LOOPBACK + ":" + port, "--node-id", nodeId,
                "--expect", String.valueOf(ports.size() + memberPorts.size()), "--expect-timeout", "2m",
                "--piece-size", "256KiB", "--range-size", "1MiB", "--connections", "4", "--linger", linger));
        command.addAll(extraArgs);
        runs[i]++;
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectOutput(dir.resolve(logName(i) + ".out").toFile())
                .redirectError(dir.resolve(logName(i) + ".err").toFile());
        environment(pb.environment());
        processes[i] = pb.start();
    }

    /** Waits until node {@code i} accepts connections on its peer port (or its process ended). */
    public void awaitListening(int i) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && processes[i].isAlive()) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(LOOPBACK, ports.get(i)), 200);
                return;
            } catch (IOException e) {
                Thread.sleep(50); // polling a port another process opens: there is nothing to await
            }
        }
        throw new IllegalStateException("node-" + i + " did not listen on " + ports.get(i) + " within 60 s; see "
                + dir.resolve("node-" + i + ".err"));
    }

    /** Whether any node process still runs. */
    public boolean anyAlive() {
        for (Process p : processes) {
            if (p != null && p.isAlive()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Waits for every node and tells whether each published the object with the right SHA-256; a node that fails
     * or does not end in time counts as not byte-exact (its log names why).
     */
    public boolean awaitByteExact(StringBuilder notes) throws InterruptedException, IOException {
        boolean exact = true;
        for (int i = 0; i < processes.length; i++) {
            Process p = processes[i];
            if (p == null) {
                exact = false;
                continue;
            }
            if (!p.waitFor(context.nodeTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                notes.append("node-").append(i).append(" did not end in time; ");
                exact = false;
                continue;
            }
            JsonNode json = Json.lastLine(dir.resolve("node-" + i + ".out"));
            if (json == null) {
                notes.append("node-").append(i).append(" printed no result (exit ").append(p.exitValue()).append("); ");
                exact = false;
                continue;
            }
            reports.add(json);
            if (!context.sha256().equals(json.path("sha256").asText())) {
                notes.append("node-").append(i).append(": ").append(json.path("error").asText("wrong bytes"))
                        .append("; ");
                exact = false;
            }
        }
        return exact;
    }

    /** The result lines ({@code node}'s JSON) of the nodes that printed one, after {@link #awaitByteExact}. */
    public List<JsonNode> reports() {
        return List.copyOf(reports);
    }

    /** Lines of node {@code i}'s log (stderr) that contain {@code text}. */
    public long logLines(int i, String text) throws IOException {
        Path err = dir.resolve("node-" + i + ".err");
        return Files.exists(err) ? Files.readAllLines(err).stream().filter(l -> l.contains(text)).count() : 0;
    }

    /** Connections between honest nodes that one closed for misbehaviour, over every node's log. */
    public int honestConnectionsRefused() throws IOException {
        return honestConnectionsRefused(List.of());
    }

    /**
     * Connections between honest nodes that one closed for misbehaviour, over every node's log, not counting
     * those to the adversaries named by {@code adversaries} (node ids or addresses).
     */
    public int honestConnectionsRefused(List<String> adversaries) throws IOException {
        long n = 0;
        for (int i = 0; i < processes.length; i++) {
            Path err = dir.resolve("node-" + i + ".err");
            if (Files.exists(err)) {
                n += Files.readAllLines(err).stream().filter(l -> l.contains("closing the connection to peer "))
                        .filter(l -> adversaries.stream().noneMatch(l::contains)).count();
            }
        }
        return (int) n;
    }

    @Override
    public void close() {
        for (Process p : members) {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
        for (Process p : processes) {
            if (p != null && p.isAlive()) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
    }

}
