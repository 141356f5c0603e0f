package io.s3broadcast.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The emulated fleet's network: one Linux network namespace per node on a bridge of a private subnet, each node's
 * link shaped in both directions with {@code tc} (download: egress of the host end of its veth; upload: egress of
 * its namespace end; each a token bucket filter, with netem for {@code --latency}), each namespace's TCP congestion
 * control set (or left as the machine's), and optionally a cgroup CPU quota per node. Nothing is routed anywhere else:
 * the namespaces have no default route.
 *
 * <p>Everything made is named {@code s3bf<pid>...} after this process, removed on {@link #close} (also from a
 * shutdown hook), and swept at the next start if this process died without cleaning up.
 */
final class Namespaces implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Namespaces.class);
    static final String PREFIX = "s3bf";
    static final String SUBNET = "10.213.0";
    static final String BRIDGE_ADDRESS = SUBNET + ".1";
    static final int FIRST_NODE = 10;
    private static final Pattern OURS = Pattern.compile(PREFIX + "(\\d+)[a-z](\\d*)");
    private static final Path CGROUP_V1_CPU = Path.of("/sys/fs/cgroup/cpu");
    private static final Path CGROUP_V2 = Path.of("/sys/fs/cgroup");

    private final long pid = ProcessHandle.current().pid();
    private final int nodes;
    private final List<Path> cgroups = new ArrayList<>();
    private final List<Process> owned = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Thread hook = new Thread(this::cleanUp, "s3bf-cleanup");
    /** The machine's list of congestion controls namespaces may use, when this run widened it (put back at close). */
    private String allowedBefore;
    private boolean closed;

    private Namespaces(int nodes) {
        this.nodes = nodes;
    }

    /** Where the kernel lists the congestion controls a socket may use (modules loaded or built in). */
    static final Path AVAILABLE_CONGESTION_CONTROLS = Path.of("/proc/sys/net/ipv4/tcp_available_congestion_control");
    /** The machine's own congestion control, which a new namespace starts with. */
    static final Path CONGESTION_CONTROL = Path.of("/proc/sys/net/ipv4/tcp_congestion_control");
    /**
     * The congestion controls a namespace other than the machine's may be set to (the kernel refuses the others
     * there, root or not): the machine's own and reno unless widened.
     */
    static final Path ALLOWED_CONGESTION_CONTROLS = Path.of("/proc/sys/net/ipv4/tcp_allowed_congestion_control");

    /**
     * Makes the bridge, the namespaces and the shaped links; cleans up what it made if any step fails.
     *
     * @param congestionControl the TCP congestion control of every namespace (what the nodes send to each other
     *     with), or null to keep the machine's
     */
    static Namespaces create(List<FleetLink> links, double latencyMillis, Double cpuPerNode, String congestionControl)
            throws IOException, InterruptedException {
        if (links.size() > 200) {
            throw new IllegalArgumentException("at most 200 nodes fit the bench's /24 subnet");
        }
        sweepStale();
        String routes = run(List.of("ip", "-o", "addr", "show"), true);
        if (routes.contains(" " + SUBNET + ".")) {
            throw new IOException("the subnet " + SUBNET + ".0/24 is already in use on this machine (another fleet run?):"
                    + " stop it or remove the interface that has it");
        }
        Namespaces ns = new Namespaces(links.size());
        Runtime.getRuntime().addShutdownHook(ns.hook);
        try {
            ns.build(links, latencyMillis, cpuPerNode, congestionControl);
            return ns;
        } catch (IOException | InterruptedException | RuntimeException e) {
            ns.close();
            throw e;
        }
    }

    private void build(List<FleetLink> links, double latencyMillis, Double cpuPerNode, String congestionControl)
            throws IOException, InterruptedException {
        String bridge = bridge();
        run(List.of("ip", "link", "add", bridge, "type", "bridge"), false);
        run(List.of("ip", "addr", "add", BRIDGE_ADDRESS + "/24", "dev", bridge), false);
        run(List.of("ip", "link", "set", bridge, "up"), false);
        if (congestionControl != null) {
            allow(congestionControl);
        }
        for (int i = 0; i < links.size(); i++) {
            String ns = namespace(i);
            String host = hostVeth(i);
            run(List.of("ip", "netns", "add", ns), false);
            if (congestionControl != null) {
                congestionControl(ns, congestionControl);
            }
            run(List.of("ip", "link", "add", host, "type", "veth", "peer", "name", "eth0", "netns", ns), false);
            run(List.of("ip", "link", "set", host, "master", bridge), false);
            run(List.of("ip", "link", "set", host, "up"), false);
            run(List.of("ip", "netns", "exec", ns, "ip", "addr", "add", address(i) + "/24", "dev", "eth0"), false);
            run(List.of("ip", "netns", "exec", ns, "ip", "link", "set", "eth0", "up"), false);
            run(List.of("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"), false);
            FleetLink link = links.get(i);
            shape(List.of(), host, link.down(), latencyMillis);
            shape(List.of("ip", "netns", "exec", ns), "eth0", link.up(), latencyMillis);
            if (cpuPerNode != null) {
                cgroups.add(cpuGroup(i, cpuPerNode));
            }
        }
        LOG.info("made {} namespaces on bridge {} ({}.0/24, bench at {}), TCP congestion control {}", links.size(),
                bridge, SUBNET, BRIDGE_ADDRESS, congestionControl != null ? congestionControl : "the machine's");
    }

    /** Sets {@code ns}'s TCP congestion control to {@code name} (a word: letters, digits, _) and reads it back. */
    private static void congestionControl(String ns, String name) throws IOException, InterruptedException {
        if (!name.matches("\\w+")) {
            throw new IllegalArgumentException("not a congestion control's name: '" + name + "'");
        }
        run(List.of("ip", "netns", "exec", ns, "sh", "-c", "echo " + name + " > " + CONGESTION_CONTROL), false);
        String set = run(List.of("ip", "netns", "exec", ns, "cat", CONGESTION_CONTROL.toString()), false).trim();
        if (!set.equals(name)) {
            throw new IOException("namespace " + ns + " kept TCP congestion control '" + set + "' when set to '" + name
                    + "'");
        }
    }

    /**
     * Lets namespaces use congestion control {@code name}: adds it to the machine's allowed list when it is not
     * there (a machine whose own is bbr allows reno and bbr only), to be put back at {@link #close}.
     */
    private void allow(String name) throws IOException {
        String allowed = Files.readString(ALLOWED_CONGESTION_CONTROLS).trim();
        String widened = allowedWith(name, allowed);
        if (widened != null) {
            Files.writeString(ALLOWED_CONGESTION_CONTROLS, widened);
            allowedBefore = allowed;
            LOG.info("TCP congestion control {} added to the machine's {} ({}) for the namespaces; put back at the end",
                    name, ALLOWED_CONGESTION_CONTROLS, allowed);
        }
    }

    /** The allowed list {@code allowed} with {@code name} added, or null when it is in it already. */
    static String allowedWith(String name, String allowed) {
        List<String> names = List.of(allowed.trim().split("\\s+"));
        return names.contains(name) ? null : (allowed.trim() + " " + name).trim();
    }

    /** Why {@code name} cannot be the namespaces' congestion control on this machine, or null when it can. */
    static String congestionControlMissing(String name) {
        return congestionControlMissing(name, readOrEmpty(AVAILABLE_CONGESTION_CONTROLS));
    }

    /** This machine's own congestion control (what a new namespace starts with), or null when unknown. */
    static String machineCongestionControl() {
        String name = readOrEmpty(CONGESTION_CONTROL).trim();
        return name.isEmpty() ? null : name;
    }

    /** The file's text, or empty when it cannot be read (not Linux). */
    private static String readOrEmpty(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * Why {@code name} cannot be the namespaces' congestion control, or null when it can: {@code available} is the
     * kernel's list ({@link #AVAILABLE_CONGESTION_CONTROLS}).
     */
    static String congestionControlMissing(String name, String available) {
        List<String> names = List.of(available.trim().split("\\s+"));
        return names.contains(name) ? null : "TCP congestion control '" + name + "' is not available here (the kernel"
                + " offers " + String.join(", ", names) + "): load its module (modprobe tcp_" + name + ") or pick one"
                + " of those, or host to keep the machine's";
    }

    /**
     * What the link carries per byte of TCP payload: a full 1514-byte Ethernet frame holds 1448 bytes of payload
     * (IPv4 and TCP headers with timestamps), and tc counts frames. Links are configured in payload bytes, as users
     * measure them; the filter's rate is scaled by this.
     */
    static final double WIRE_OVERHEAD = 1514.0 / 1448.0;

    /** A token bucket filter at {@code rate} payload bytes/s on the egress of {@code dev}, then netem delay if asked. */
    private static void shape(List<String> prefix, String dev, long rate, double latencyMillis) throws IOException,
            InterruptedException {
        List<String> root = new ArrayList<>(prefix);
        if (rate > 0) {
            long burst = Math.max(64 * 1024, rate / 50);
            long wireBits = Math.round(rate * WIRE_OVERHEAD * 8);
            root.addAll(List.of("tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "tbf", "rate", wireBits + "bit",
                    "burst", String.valueOf(burst), "latency", "100ms"));
            run(root, false);
            if (latencyMillis > 0) {
                List<String> netem = new ArrayList<>(prefix);
                netem.addAll(List.of("tc", "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "netem", "delay",
                        String.format(Locale.ROOT, "%.3fms", latencyMillis), "limit", "100000"));
                netem(netem);
            }
        } else if (latencyMillis > 0) {
            root.addAll(List.of("tc", "qdisc", "add", "dev", dev, "root", "handle", "10:", "netem", "delay",
                    String.format(Locale.ROOT, "%.3fms", latencyMillis), "limit", "100000"));
            netem(root);
        }
    }

    private static void netem(List<String> command) throws IOException, InterruptedException {
        try {
            run(command, false);
        } catch (IOException e) {
            if (e.getMessage().contains("unknown")) {
                throw new IOException("--latency needs tc's netem, which this kernel does not have (module sch_netem):"
                        + " run without --latency here", e);
            }
            throw e;
        }
    }

    private Path cpuGroup(int node, double cores) throws IOException {
        String name = PREFIX + pid + "c" + node;
        if (Files.isDirectory(CGROUP_V1_CPU)) {
            Path dir = Files.createDirectories(CGROUP_V1_CPU.resolve(name));
            Files.writeString(dir.resolve("cpu.cfs_period_us"), "100000");
            Files.writeString(dir.resolve("cpu.cfs_quota_us"), String.valueOf(Math.max(1000, Math.round(cores * 100_000))));
            return dir;
        }
        if (Files.exists(CGROUP_V2.resolve("cgroup.controllers"))) {
            Path dir = Files.createDirectories(CGROUP_V2.resolve(name));
            Files.writeString(dir.resolve("cpu.max"), Math.max(1000, Math.round(cores * 100_000)) + " 100000");
            return dir;
        }
        throw new IOException("--cpu-per-node needs the cgroup cpu controller (/sys/fs/cgroup/cpu or cgroup v2)");
    }

    /** Puts process {@code pid} into node {@code node}'s CPU cgroup, if there are cgroups. */
    void limitCpu(int node, long processId) throws IOException {
        if (cgroups.isEmpty()) {
            return;
        }
        Files.writeString(cgroups.get(node).resolve("cgroup.procs"), String.valueOf(processId));
    }

    /** A process outside the namespaces (the tracker) that is to end with them, on Ctrl-C too. */
    void own(Process process) {
        owned.add(process);
    }

    /** The command that runs {@code command} in node {@code node}'s namespace. */
    List<String> inNamespace(int node, List<String> command) {
        List<String> c = new ArrayList<>(List.of(FleetTools.find("ip").toString(), "netns", "exec", namespace(node)));
        c.addAll(command);
        return c;
    }

    int nodes() {
        return nodes;
    }

    static String address(int node) {
        return SUBNET + "." + (FIRST_NODE + node);
    }

    String namespace(int node) {
        return PREFIX + pid + "n" + node;
    }

    /**
     * The counter of the bytes node {@code node} downloaded: what the host end of its veth sent (Ethernet frames,
     * so payload times about {@link #WIRE_OVERHEAD}).
     */
    Path downloadCounter(int node) {
        return Path.of("/sys/class/net", hostVeth(node), "statistics", "tx_bytes");
    }

    /**
     * The counter of the bytes node {@code node} uploaded: what the host end of its veth received (Ethernet frames,
     * to peers and S3 alike).
     */
    Path uploadCounter(int node) {
        return Path.of("/sys/class/net", hostVeth(node), "statistics", "rx_bytes");
    }

    private String hostVeth(int node) {
        return PREFIX + pid + "h" + node;
    }

    private String bridge() {
        return PREFIX + pid + "b";
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        cleanUp();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // already shutting down
        }
    }

    private synchronized void cleanUp() {
        if (closed) {
            return;
        }
        closed = true;
        owned.forEach(Process::destroyForcibly);
        for (int i = 0; i < nodes; i++) {
            killProcessesIn(namespace(i));
            // Deleting the host end removes the pair at once; a namespace whose processes are still exiting
            // would otherwise keep its veth (and the host end) until they are gone.
            quietly(List.of("ip", "link", "del", hostVeth(i)));
            quietly(List.of("ip", "netns", "del", namespace(i)));
        }
        quietly(List.of("ip", "link", "del", bridge()));
        if (allowedBefore != null) {
            try {
                Files.writeString(ALLOWED_CONGESTION_CONTROLS, allowedBefore);
            } catch (IOException e) {
                LOG.warn("cannot put back {} ({}): {}", ALLOWED_CONGESTION_CONTROLS, allowedBefore, e.toString());
            }
        }
        for (Path g : cgroups) {
            try {
                Files.deleteIfExists(g);
            } catch (IOException e) {
                LOG.warn("cannot remove cgroup {}: {}", g, e.toString());
            }
        }
    }

    /** Ends the processes still running in one of our namespaces (after Ctrl-C or a crash of a trial). */
    private static void killProcessesIn(String namespace) {
        try {
            for (String pid : run(List.of("ip", "netns", "pids", namespace), true).split("\\s+")) {
                if (pid.matches("\\d+")) {
                    ProcessHandle.of(Long.parseLong(pid)).ifPresent(p -> {
                        p.destroyForcibly();
                        try {
                            p.onExit().get(5, java.util.concurrent.TimeUnit.SECONDS);
                        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                            LOG.warn("process {} in {} still running 5 s after it was killed", pid, namespace);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                }
            }
        } catch (IOException | InterruptedException e) {
            LOG.debug("listing the processes of {}: {}", namespace, e.toString());
        }
    }

    /** Removes namespaces, links and cgroups named after a bench process that no longer runs. */
    static void sweepStale() throws IOException, InterruptedException {
        for (String line : run(List.of("ip", "netns", "list"), true).split("\n")) {
            String name = line.trim().split(" ")[0];
            if (stale(name)) {
                LOG.warn("removing stale namespace {} of a fleet run that did not clean up", name);
                killProcessesIn(name);
                quietly(List.of("ip", "netns", "del", name));
            }
        }
        for (String line : run(List.of("ip", "-o", "link", "show"), true).split("\n")) {
            String[] f = line.split(":\\s+");
            if (f.length > 1) {
                String name = f[1].split("@")[0].trim();
                if (stale(name)) {
                    LOG.warn("removing stale link {}", name);
                    quietly(List.of("ip", "link", "del", name));
                }
            }
        }
        for (Path root : List.of(CGROUP_V1_CPU, CGROUP_V2)) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (var dirs = Files.list(root)) {
                for (Path d : dirs.filter(p -> stale(p.getFileName().toString())).toList()) {
                    Files.deleteIfExists(d);
                }
            } catch (IOException e) {
                LOG.debug("sweeping cgroups: {}", e.toString());
            }
        }
    }

    private static boolean stale(String name) {
        Matcher m = OURS.matcher(name);
        if (!m.matches()) {
            return false;
        }
        long owner = Long.parseLong(m.group(1));
        return ProcessHandle.of(owner).map(p -> !p.isAlive()).orElse(true);
    }

    private static void quietly(List<String> command) {
        try {
            run(command, true);
        } catch (IOException | InterruptedException e) {
            LOG.debug("{}: {}", command, e.toString());
        }
    }

    /** Runs a command; unless {@code tolerant}, a non-zero exit is an error naming the command and its output. */
    static String run(List<String> command, boolean tolerant) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish in 30 s");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0 && !tolerant) {
            throw new IOException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + text.trim());
        }
        return text;
    }
}
