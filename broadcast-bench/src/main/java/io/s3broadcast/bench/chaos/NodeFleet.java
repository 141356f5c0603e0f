package io.s3broadcast.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
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

    NodeFleet(ChaosContext context, Path dir, int nodes, int otherMembers) throws IOException {
        this.context = context;
        this.dir = Files.createDirectories(dir);
        List<Integer> all = freePorts(nodes + otherMembers);
        this.ports = all.subList(0, nodes);
        this.memberPorts = all.subList(nodes, all.size());
        this.processes = new Process[nodes];
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
        return "static:" + java.util.stream.Stream.concat(ports.stream(), memberPorts.stream())
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
        command.addAll(List.of("node",
                "--endpoint", context.endpoint().toString(), "--path-style", String.valueOf(context.pathStyle()),
                "--bucket", context.bucket(), "--key", context.key(), "--out", dir.resolve("node-" + i).toString(),
                "--registry", registry, "--listen", LOOPBACK + ":" + port, "--node-id", "node-" + i,
                "--expect", String.valueOf(ports.size() + memberPorts.size()), "--expect-timeout", "2m",
                "--piece-size", "256KiB", "--range-size", "1MiB", "--connections", "4", "--linger", "10s"));
        command.addAll(extraArgs);
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectOutput(dir.resolve("node-" + i + ".out").toFile())
                .redirectError(dir.resolve("node-" + i + ".err").toFile());
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
        ObjectMapper mapper = new ObjectMapper();
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
            List<String> lines = Files.readAllLines(dir.resolve("node-" + i + ".out")).stream()
                    .filter(l -> l.startsWith("{")).toList();
            if (lines.isEmpty()) {
                notes.append("node-").append(i).append(" printed no result (exit ").append(p.exitValue()).append("); ");
                exact = false;
                continue;
            }
            JsonNode json = mapper.readTree(lines.get(lines.size() - 1));
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

    static List<Integer> freePorts(int n) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                sockets.add(new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK)));
            }
            return sockets.stream().map(ServerSocket::getLocalPort).toList();
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }
}
