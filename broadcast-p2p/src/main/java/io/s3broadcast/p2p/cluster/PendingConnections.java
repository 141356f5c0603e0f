package io.s3broadcast.p2p.cluster;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Inbound connections of the peer server that have not authenticated yet: from accept until the peer has proved
 * the group secret. Each is closed when the handshake timeout passes (however much of a handshake it sent), and
 * when more than {@code max} are pending the oldest is closed, so a flood of half-open connections holds no
 * resources for long and cannot keep real peers out for more than one redial. Closing is logged once per remote
 * host (then at debug), so a flood does not flood the log either.
 *
 * <p>Thread-safe: channels of every event loop report here.
 */
final class PendingConnections {

    private static final Logger LOG = LoggerFactory.getLogger(PendingConnections.class);
    /** Remote hosts remembered for logging once; beyond this, closures are logged at debug only. */
    private static final int MAX_LOGGED_HOSTS = 1024;

    private final long timeoutNanos;
    private final int max;
    private final Set<Channel> pending = new LinkedHashSet<>();
    private final Set<String> loggedHosts = Collections.synchronizedSet(new HashSet<>());
    private final AtomicLong closed = new AtomicLong();

    PendingConnections(long timeoutNanos, int max) {
        if (timeoutNanos <= 0 || max <= 0) {
            throw new IllegalArgumentException("timeout and max must be > 0, were " + timeoutNanos + ", " + max);
        }
        this.timeoutNanos = timeoutNanos;
        this.max = max;
    }

    /** {@code ch} was accepted; it has the handshake timeout to authenticate. */
    void accepted(Channel ch) {
        Channel evict = null;
        synchronized (pending) {
            pending.add(ch);
            if (pending.size() > max) {
                Iterator<Channel> oldest = pending.iterator();
                evict = oldest.next();
                oldest.remove();
            }
        }
        ch.closeFuture().addListener(f -> remove(ch));
        ch.eventLoop().schedule(() -> {
            if (remove(ch) && ch.isActive()) {
                close(ch, "no authenticated handshake within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
            }
        }, timeoutNanos, TimeUnit.NANOSECONDS);
        if (evict != null) {
            Channel e = evict;
            close(e, "more than " + max + " connections are waiting to authenticate; the oldest is closed");
        }
    }

    /** {@code ch}'s peer has authenticated: no longer pending. */
    void authenticated(Channel ch) {
        remove(ch);
    }

    /** Connections closed for taking too long or for a flood, since start. */
    long closedCount() {
        return closed.get();
    }

    int size() {
        synchronized (pending) {
            return pending.size();
        }
    }

    private boolean remove(Channel ch) {
        synchronized (pending) {
            return pending.remove(ch);
        }
    }

    private void close(Channel ch, String why) {
        closed.incrementAndGet();
        String host = host(ch.remoteAddress());
        boolean first = loggedHosts.size() < MAX_LOGGED_HOSTS && loggedHosts.add(host);
        if (first) {
            LOG.warn("closing an unauthenticated connection from {}: {} (further ones from this host are logged at"
                    + " debug)", ch.remoteAddress(), why);
        } else {
            LOG.debug("closing an unauthenticated connection from {}: {}", ch.remoteAddress(), why);
        }
        ch.close();
    }

    private static String host(SocketAddress address) {
        return address instanceof InetSocketAddress a && a.getAddress() != null ? a.getAddress().getHostAddress()
                : String.valueOf(address);
    }
}
