package io.s3broadcast.zookeeper;

import java.util.HashMap;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;

/**
 * One Curator client (one ZooKeeper session) per ensemble and timeouts in this process, shared by every registry
 * opened from a {@code zk://} spec and counted: the first {@link #acquire} builds and starts it, the last
 * {@link Lease#close()} closes it. Broadcast runs in one process thus cost the ensemble one session, not one each.
 */
final class SharedSessions {

    private static final Map<Key, Entry> clients = new HashMap<>(); // guarded by SharedSessions.class

    private record Key(String connectString, int sessionMillis, int connectMillis) {
    }

    private static final class Entry {
        final CuratorFramework client;
        int users;

        Entry(CuratorFramework client) {
            this.client = client;
        }
    }

    /** A use of a shared client; closing it gives the use back. Idempotent. */
    static final class Lease implements AutoCloseable {
        private final Key key;
        private final CuratorFramework client;
        private boolean closed; // guarded by SharedSessions.class

        private Lease(Key key, CuratorFramework client) {
            this.key = key;
            this.client = client;
        }

        CuratorFramework client() {
            return client;
        }

        @Override
        public void close() {
            CuratorFramework toClose = null;
            synchronized (SharedSessions.class) {
                if (closed) {
                    return;
                }
                closed = true;
                Entry e = clients.get(key);
                if (e != null && e.client == client && --e.users == 0) {
                    clients.remove(key);
                    toClose = client;
                }
            }
            if (toClose != null) {
                toClose.close();
            }
        }
    }

    private SharedSessions() {
    }

    /** The started client for this ensemble and these timeouts, shared with the other users of the same. */
    static Lease acquire(String connectString, int sessionMillis, int connectMillis) {
        Key key = new Key(connectString, sessionMillis, connectMillis);
        synchronized (SharedSessions.class) {
            Entry e = clients.get(key);
            if (e == null) {
                CuratorFramework client = CuratorFrameworkFactory.builder()
                        .connectString(connectString)
                        .sessionTimeoutMs(sessionMillis)
                        .connectionTimeoutMs(connectMillis)
                        .retryPolicy(new BoundedExponentialBackoffRetry(100, 5_000, 29))
                        .build();
                client.start();
                e = new Entry(client);
                clients.put(key, e);
            }
            e.users++;
            return new Lease(key, e.client);
        }
    }

    /** How many registries use the client for this ensemble and these timeouts; for tests. */
    static int users(String connectString, int sessionMillis, int connectMillis) {
        synchronized (SharedSessions.class) {
            Entry e = clients.get(new Key(connectString, sessionMillis, connectMillis));
            return e == null ? 0 : e.users;
        }
    }
}
