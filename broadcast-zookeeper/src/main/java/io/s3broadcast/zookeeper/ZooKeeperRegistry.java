package io.s3broadcast.zookeeper;

import org.apache.zookeeper.KeeperException;

import java.util.Optional;

import java.security.SecureRandom;

import io.s3broadcast.registry.AbstractNodeRegistry;
import io.s3broadcast.registry.NodeEntry;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.registry.NodeRegistry;
import io.s3broadcast.registry.NodeRegistryProvider;
import io.s3broadcast.registry.RegistryConfig;
import io.s3broadcast.registry.RegistryException;
import io.s3broadcast.registry.RegistrySpec;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Members are ephemeral znodes {@code <path>/<group hash>/<node id>} whose data is the member's
 * {@link NodeEntry}; the group node is a container, which ZooKeeper removes once it is empty. A node that crashes
 * disappears with its session.
 *
 * <p>Registries opened from a {@code zk://} spec share one Curator client, so one ZooKeeper session, per ensemble in
 * the process (reference-counted: the last registry closed closes it). Each registry keeps one children watch on the
 * group node: a join or leave fires one event per watching registry, which lists the children again (setting the
 * watch again) and reads the data of new children only; so one change costs the fleet O(N) events and reads, not
 * a watch per member per member. This node's znode is a Curator {@link PersistentNode}: when the session is lost
 * (the other nodes then see this one leave, once the session expires) it is created again as soon as a new session
 * starts, and the others see it join. {@link #leave()} deletes it. While the connection is down the last known
 * members stay as they were.
 */
public final class ZooKeeperRegistry extends AbstractNodeRegistry {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperRegistry.class);

    private final CuratorFramework client;
    private final SharedSessions.Lease session; // null when the caller owns the client
    private final String where;
    private final String groupPath;
    private final String secretPath;
    private final Clock clock;
    private final Duration operationTimeout;
    private final ConnectionStateListener connectionListener = this::connectionChanged;

    private final Watcher childrenWatcher = this::childrenChanged;
    /** The data of the group's children as last read, by znode name; only new names are read. */
    private final Map<String, NodeEntry> known = new ConcurrentHashMap<>();
    private PersistentNode znode; // guarded by the lifecycle (do* methods)
    private NodeEntry ownEntry; // guarded by the lifecycle (do* methods)
    private volatile boolean watching;
    private final AtomicLong reads = new AtomicLong(); // listings and data reads after start, for tests
    private volatile String withdrawnId; // the id this node left as, hidden until a listing shows its znode gone

    private ZooKeeperRegistry(CuratorFramework client, SharedSessions.Lease session, String where, String basePath,
            RegistryConfig config) {
        super(config.group());
        this.client = Objects.requireNonNull(client, "client");
        this.session = session;
        this.where = where;
        this.groupPath = basePath + "/" + config.group().hash();
        this.secretPath = basePath + "/" + SECRET_NAME;
        this.clock = config.clock();
        this.operationTimeout = config.operationTimeout();
    }

    /**
     * A registry for {@code spec}'s ensemble on the Curator client this process shares for that ensemble and the
     * config's session and operation timeouts (started on first use, closed when its last registry closes).
     */
    public static ZooKeeperRegistry create(RegistrySpec.ZooKeeper spec, RegistryConfig config) {
        int sessionMillis = (int) Math.min(Integer.MAX_VALUE, config.sessionTimeout().toMillis());
        int connectMillis = (int) Math.min(sessionMillis, config.operationTimeout().toMillis());
        SharedSessions.Lease session = SharedSessions.acquire(spec.connectString(), sessionMillis, connectMillis);
        return new ZooKeeperRegistry(session.client(), session, spec.toString(), spec.path(), config);
    }

    /**
     * A registry on a Curator client the caller owns and has started; closing the registry leaves the client open.
     *
     * @param basePath absolute znode path under which groups live, without a trailing {@code /}
     */
    public static ZooKeeperRegistry create(CuratorFramework client, String basePath, RegistryConfig config) {
        if (!basePath.startsWith("/")) {
            throw new IllegalArgumentException("ZooKeeper base path '" + basePath + "' must start with '/'");
        }
        String path = ((RegistrySpec.ZooKeeper) RegistrySpec.parse("zk://localhost" + basePath)).path();
        String where = "zk://" + client.getZookeeperClient().getCurrentConnectionString() + path;
        return new ZooKeeperRegistry(client, null, where, path, config);
    }

    /** The znode under which this group's members live. */
    /** Name of the znode, under the base path, that holds the group secret of every group there. */
    public static final String SECRET_NAME = "s3broadcast-secret";

    /**
     * The secret in {@code <path>/s3broadcast-secret}, shared by every group under the path: read it, or create it
     * (a create fails if another node created it first, then that one is read).
     */
    @Override
    public Optional<byte[]> groupSecret() {
        try {
            byte[] secret = new byte[32];
            new SecureRandom().nextBytes(secret);
            try {
                client.create().creatingParentContainersIfNeeded().forPath(secretPath, secret);
                log.info("{}: created the group secret {} (whoever can read it can join)", this, secretPath);
            } catch (KeeperException.NodeExistsException e) {
                // Another node created it first.
            }
            byte[] stored = client.getData().forPath(secretPath);
            if (stored == null || stored.length < 16) {
                throw new RegistryException("the group secret " + secretPath + " at " + where + " has fewer than 16 bytes:"
                        + " delete it (a new one is generated) or configure a secret");
            }
            return Optional.of(stored);
        } catch (RegistryException e) {
            throw e;
        } catch (Exception e) {
            throw new RegistryException("could not read or create the group secret " + secretPath + " at " + where + ": "
                    + e, e);
        }
    }

    /** The ZooKeeper session this registry's client has now; registries of one process share it. */
    long sessionId() throws Exception {
        return client.getZookeeperClient().getZooKeeper().getSessionId();
    }

    /** Listings and data reads made after start, to check what a change costs. */
    long reads() {
        return reads.get();
    }

    public String groupPath() {
        return groupPath;
    }

    @Override
    protected void doStart() {
        client.getConnectionStateListenable().addListener(connectionListener);
        try {
            if (!client.blockUntilConnected((int) operationTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new RegistryException("could not connect to ZooKeeper at " + where + " within " + operationTimeout);
            }
            client.createContainers(groupPath);
            watching = true;
            List<String> children = client.getChildren().usingWatcher(childrenWatcher).forPath(groupPath);
            for (String name : children) {
                try {
                    NodeEntry entry = decode(groupPath + "/" + name, client.getData().forPath(groupPath + "/" + name));
                    if (entry != null) {
                        known.put(name, entry);
                    }
                } catch (KeeperException.NoNodeException e) {
                    // gone since the listing
                }
            }
            publish(children);
            log.debug("{}: following {} at {}", this, groupPath, where);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RegistryException("interrupted while starting the ZooKeeper registry at " + where, e);
        } catch (RegistryException e) {
            throw e;
        } catch (Exception e) {
            throw new RegistryException("could not start the ZooKeeper registry at " + where + ": " + e, e);
        }
    }

    /** The children watch fired (it fires once): list the children again, setting it again. */
    private void childrenChanged(WatchedEvent event) {
        if (watching && event.getType() != Watcher.Event.EventType.None) {
            relist();
        }
    }

    /** Lists the group's children with the watch set, in the background, then reads the new ones. */
    private void relist() {
        if (!watching) {
            return;
        }
        try {
            reads.incrementAndGet();
            client.getChildren().usingWatcher(childrenWatcher).inBackground((c, event) -> {
                if (event.getResultCode() == KeeperException.Code.OK.intValue()) {
                    readNew(event.getChildren());
                } else if (watching) {
                    log.warn("{}: could not list {} at {} (code {}); listing again on reconnect", this, groupPath,
                            where, KeeperException.Code.get(event.getResultCode()));
                }
            }).forPath(groupPath);
        } catch (Exception e) {
            log.warn("{}: could not list {} at {}: {}", this, groupPath, where, e.toString());
        }
    }

    /** Reads the data of children not read before (in the background), then publishes the listing. */
    private void readNew(List<String> children) {
        known.keySet().retainAll(children);
        List<String> fresh = children.stream().filter(n -> !known.containsKey(n)).toList();
        if (fresh.isEmpty()) {
            publish(children);
            return;
        }
        AtomicInteger left = new AtomicInteger(fresh.size());
        for (String name : fresh) {
            String path = groupPath + "/" + name;
            try {
                reads.incrementAndGet();
                client.getData().inBackground((c, event) -> {
                    if (event.getResultCode() == KeeperException.Code.OK.intValue()) {
                        NodeEntry entry = decode(path, event.getData());
                        if (entry != null) {
                            known.put(name, entry);
                        }
                    }
                    if (left.decrementAndGet() == 0) {
                        publish(children);
                    }
                }).forPath(path);
            } catch (Exception e) {
                log.warn("{}: could not read {} at {}: {}", this, path, where, e.toString());
                if (left.decrementAndGet() == 0) {
                    publish(children);
                }
            }
        }
    }

    @Override
    protected NodeInfo doRegister(NodeInfo node) {
        String path = groupPath + "/" + node.nodeId();
        withdrawnId = null;
        try {
            refuseIfTakenByAnother(path, node);
            NodeEntry entry = new NodeEntry(node, clock.instant());
            PersistentNode created = new PersistentNode(client, CreateMode.EPHEMERAL, false, path, entry.toJson());
            created.start();
            if (!created.waitForInitialCreate(operationTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                closeQuietly(created);
                throw new RegistryException("could not create " + path + " at " + where + " within " + operationTimeout);
            }
            znode = created;
            ownEntry = entry;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RegistryException("interrupted while registering " + node + " at " + where, e);
        } catch (RegistryException e) {
            throw e;
        } catch (Exception e) {
            throw new RegistryException("could not register " + node + " at " + where + ": " + e, e);
        }
        memberJoined(node);
        return node;
    }

    /**
     * This node's znode says its broadcast has begun. Only nodes that read it afterwards see it (a znode's data is
     * read once, when it first appears), which is what they need: a node registering later is late.
     */
    @Override
    protected void doMarkBegun(NodeInfo node) {
        PersistentNode current = znode;
        if (current == null || ownEntry == null || ownEntry.begun()) {
            return;
        }
        ownEntry = ownEntry.withBegun();
        try {
            current.setData(ownEntry.toJson());
        } catch (Exception e) {
            throw new RegistryException("could not mark " + node + " begun at " + where + ": " + e, e);
        }
    }

    /**
     * A live znode with this id from another session is another node with the same id, unless it carries this
     * node's address, when it is this node's own entry from a session that has not expired yet: then the new
     * one takes it over.
     */
    private void refuseIfTakenByAnother(String path, NodeInfo node) throws Exception {
        Stat stat = new Stat();
        byte[] data;
        try {
            data = client.getData().storingStatIn(stat).forPath(path);
        } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
            return;
        }
        NodeEntry decoded = decode(path, data);
        NodeInfo existing = decoded == null ? null : decoded.node();
        if (existing != null && !existing.equals(node)) {
            throw new RegistryException("node id " + node.nodeId() + " is already registered at " + where + " by a live node at "
                    + existing.address() + "; node ids must be unique in a group");
        }
        log.info("{}: taking over {} left by an earlier session of this node", this, path);
    }

    @Override
    protected void doLeave(NodeInfo node) {
        PersistentNode current = znode;
        znode = null;
        withdrawnId = node.nodeId();
        try {
            if (current != null) {
                current.close();
            }
        } catch (IOException e) {
            throw new RegistryException("could not delete " + groupPath + "/" + node.nodeId() + " at " + where + ": " + e, e);
        } finally {
            memberLeft(node.nodeId());
        }
    }

    @Override
    protected void doClose() {
        watching = false;
        if (znode != null) {
            closeQuietly(znode);
            znode = null;
        }
        client.getConnectionStateListenable().removeListener(connectionListener);
        try {
            client.watchers().remove(childrenWatcher).ofType(Watcher.WatcherType.Children).locally().forPath(groupPath);
        } catch (Exception e) {
            log.debug("{}: removing the children watch on {} failed: {}", this, groupPath, e.toString());
        }
        if (session != null) {
            session.close();
        }
    }

    /** Replaces the member table with the children listed, as last read. */
    private synchronized void publish(List<String> children) {
        if (!watching) {
            return;
        }
        String withdrawn = withdrawnId;
        boolean withdrawnStillThere = false;
        List<NodeInfo> members = new ArrayList<>();
        NodeInfo self = registeredSelf();
        boolean othersBegun = false;
        for (String name : children) {
            NodeEntry entry = known.get(name);
            if (entry == null) {
                continue;
            }
            NodeInfo node = entry.node();
            othersBegun |= entry.begun() && (self == null || !self.nodeId().equals(node.nodeId()));
            if (node.nodeId().equals(withdrawn)) {
                withdrawnStillThere = true;
            } else {
                members.add(node);
            }
        }
        if (withdrawn != null && !withdrawnStillThere) {
            withdrawnId = null;
        }
        reportOthersBegun(othersBegun);
        replaceMembers(members);
    }

    private NodeEntry decode(String path, byte[] data) {
        String id = path.substring(path.lastIndexOf('/') + 1);
        try {
            NodeEntry entry = NodeEntry.parse(data == null ? new byte[0] : data);
            if (!entry.node().nodeId().equals(id)) {
                log.warn("{}: ignoring {}: it holds node id {}", this, path, entry.node().nodeId());
                return null;
            }
            return entry;
        } catch (IllegalArgumentException e) {
            log.warn("{}: ignoring {}: {}", this, path, e.getMessage());
            return null;
        }
    }

    private void connectionChanged(CuratorFramework c, ConnectionState state) {
        switch (state) {
            case SUSPENDED -> log.warn("{}: connection to ZooKeeper at {} suspended; members may be out of date", this, where);
            case LOST -> log.warn("{}: ZooKeeper session lost at {}; others see this node leave; it registers again on reconnect",
                    this, where);
            case RECONNECTED -> {
                log.info("{}: reconnected to ZooKeeper at {}", this, where);
                relist(); // a new session has lost the watch; an old one may have missed changes
            }
            default -> log.debug("{}: ZooKeeper connection {}", this, state);
        }
    }

    private static void closeQuietly(PersistentNode node) {
        try {
            node.close();
        } catch (IOException | RuntimeException e) {
            log.debug("closing {} failed", node.getActualPath(), e);
        }
    }

    @Override
    public String toString() {
        return "ZooKeeperRegistry[" + groupPath + "]";
    }

    /** Serves {@code zk://host:port[,host:port]/path} specs. */
    public static final class Provider implements NodeRegistryProvider {

        @Override
        public String scheme() {
            return "zk";
        }

        @Override
        public NodeRegistry create(RegistrySpec spec, RegistryConfig config) {
            if (!(spec instanceof RegistrySpec.ZooKeeper zk)) {
                throw new IllegalArgumentException("not a ZooKeeper registry spec: " + spec);
            }
            return ZooKeeperRegistry.create(zk, config);
        }
    }
}
