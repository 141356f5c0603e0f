package io.s3broadcast.bench.chaos;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * A TCP relay on loopback in front of one address (a node's peer port, or the S3 endpoint) that can be cut like a
 * network partition: a cut connection is blackholed, not closed (bytes are read and dropped both ways, no FIN, no
 * RST), so the ends see silence until their own timeouts, as behind a dropped route. Each connection is tagged with
 * the first of {@code tags} that appears in the first bytes the dialler sends (a node's {@code HANDSHAKE} carries
 * its node id in clear), so a cut can pick the connections one node dialled. Plain threads: a handful of
 * connections per trial.
 */
final class CuttableRelay implements Closeable {

    private static final int SNIFF = 512;

    private final ServerSocket server;
    private final InetSocketAddress target;
    private volatile List<String> tags;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private volatile Predicate<String> cut = tag -> false;
    private volatile boolean closed;

    private CuttableRelay(InetSocketAddress target, List<String> tags) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getByName(NodeFleet.LOOPBACK));
        this.target = target;
        // Longest first: one id may be a prefix of another (127.0.0.1:4001 and 127.0.0.1:40012).
        tags(tags);
        Thread t = new Thread(this::acceptLoop, "relay-" + server.getLocalPort());
        t.setDaemon(true);
        t.start();
    }

    /** A relay to {@code target} that tags connections with the first of {@code tags} its dialler sends. */
    static CuttableRelay start(InetSocketAddress target, List<String> tags) throws IOException {
        return new CuttableRelay(target, tags);
    }

    /** The strings that tag a connection when its dialler sends one of them first. */
    void tags(List<String> tags) {
        // Longest first: one id may be a prefix of another (127.0.0.1:4001 and 127.0.0.1:40012).
        this.tags = tags.stream().sorted(java.util.Comparator.comparingInt(String::length).reversed()).toList();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Blackholes every connection, open or to come, whose tag ("" when untagged) {@code which} accepts. */
    void cut(Predicate<String> which) {
        cut = which;
    }

    /** Blackholes every connection, open or to come. */
    void cutAll() {
        cut(tag -> true);
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket dialler = server.accept();
                Link link = new Link(dialler);
                links.add(link);
                spawn(() -> link.run(), "relay-link-" + dialler.getPort());
            } catch (IOException e) {
                if (!closed) {
                    continue;
                }
                return;
            }
        }
    }

    private static void spawn(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        for (Link l : links) {
            l.close();
        }
    }

    /** One relayed connection. */
    private final class Link {
        private final Socket dialler;
        private volatile Socket upstream;
        private volatile String tag = "";

        Link(Socket dialler) {
            this.dialler = dialler;
        }

        void run() {
            try {
                if (cut.test(tag)) {
                    drain(dialler.getInputStream(), null, false); // blackholed from the start: never reaches the target
                    return;
                }
                Socket s = new Socket();
                s.connect(target, 5_000);
                upstream = s;
                spawn(() -> pump(s, dialler, false), "relay-back-" + dialler.getPort());
                pump(dialler, s, true);
            } catch (IOException e) {
                close();
            }
        }

        /** Copies {@code from} to {@code to} until either ends; drops the bytes while this link is cut. */
        private void pump(Socket from, Socket to, boolean sniff) {
            try {
                drain(from.getInputStream(), to.getOutputStream(), sniff);
            } catch (IOException e) {
                // an end went away
            }
            if (!cut.test(tag)) {
                close(); // a cut link stays silent: the other end learns nothing
            }
        }

        private void drain(InputStream in, OutputStream out, boolean sniff) throws IOException {
            byte[] buf = new byte[64 * 1024];
            StringBuilder seen = sniff ? new StringBuilder() : null;
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (seen != null && tag.isEmpty() && seen.length() < SNIFF) {
                    seen.append(new String(buf, 0, Math.min(n, SNIFF), StandardCharsets.ISO_8859_1));
                    for (String t : tags) {
                        if (seen.indexOf(t) >= 0) {
                            tag = t;
                            break;
                        }
                    }
                }
                if (out != null && !cut.test(tag)) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            }
        }

        void close() {
            links.remove(this);
            closeQuietly(dialler);
            Socket s = upstream;
            if (s != null) {
                closeQuietly(s);
            }
        }

        private void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }
}
