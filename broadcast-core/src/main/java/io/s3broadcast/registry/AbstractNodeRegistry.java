package io.s3broadcast.registry;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part every registry shares: the lifecycle (start once, register, leave, close once), the member
 * table and the delivery of {@link MembershipListener} events. A subclass talks to its store and reports
 * what it sees with {@link #replaceMembers}, {@link #memberJoined} and {@link #memberLeft}; this class
 * works out the changes and tells the listeners, one event at a time, in order, outside any lock.
 *
 * <p>The {@code do*} methods are called with the lifecycle lock held, so they never run concurrently with
 * each other; they may block on the store. The methods a store's threads call ({@link #replaceMembers},
 * {@link #memberJoined}, {@link #memberLeft}, {@link #isClosed}, {@link #registeredSelf}) never take that
 * lock, so a {@code do*} method may wait for work that calls them.
 */
public abstract class AbstractNodeRegistry implements NodeRegistry {

    private static final Logger log = LoggerFactory.getLogger(AbstractNodeRegistry.class);

    private enum State { NEW, STARTED, CLOSED }

    private final GroupId group;

    private final Object lifecycle = new Object();
    private volatile State state = State.NEW; // written under lifecycle
    private volatile NodeInfo self; // written under lifecycle
    private volatile boolean othersBegun;

    private final Object table = new Object();
    private volatile SortedMap<String, NodeInfo> members = Collections.emptySortedMap(); // written under table
    private final List<Subscriber> subscribers = new ArrayList<>(); // guarded by table
    private final ArrayDeque<Runnable> pending = new ArrayDeque<>(); // guarded by table
    private boolean draining; // guarded by table

    protected AbstractNodeRegistry(GroupId group) {
        this.group = Objects.requireNonNull(group, "group");
    }

    /** Connects to the store and reports the current members before returning. */
    protected abstract void doStart();

    /** Announces {@code node} and keeps it announced; returns the identity the group knows it by. */
    protected abstract NodeInfo doRegister(NodeInfo node);

    /** Withdraws {@code node}, which is registered. */
    protected abstract void doLeave(NodeInfo node);

    /** Releases what the registry owns; called once, started or not, after any {@link #doLeave}. */
    protected abstract void doClose();

    /** Marks the registered {@code node}'s broadcast begun in its entry; by default the registry keeps no mark. */
    protected void doMarkBegun(NodeInfo node) {
    }

    @Override
    public final GroupId group() {
        return group;
    }

    @Override
    public final void start() {
        synchronized (lifecycle) {
            if (state == State.CLOSED) {
                throw new IllegalStateException("registry " + this + " is closed");
            }
            if (state == State.STARTED) {
                return;
            }
            doStart();
            state = State.STARTED;
        }
    }

    @Override
    public final NodeInfo register(NodeInfo node) {
        Objects.requireNonNull(node, "node");
        synchronized (lifecycle) {
            if (state != State.STARTED) {
                throw new IllegalStateException("registry " + this + " is " + state.name().toLowerCase() + "; start it before register");
            }
            if (self != null) {
                throw new IllegalStateException("registry " + this + " already has this node as " + self + "; leave first");
            }
            NodeInfo registered = doRegister(node);
            self = registered;
            return registered;
        }
    }

    @Override
    public final void leave() {
        synchronized (lifecycle) {
            NodeInfo node = self;
            if (node == null || state != State.STARTED) {
                return;
            }
            try {
                doLeave(node);
            } finally {
                self = null;
            }
        }
    }

    @Override
    public final void markBegun() {
        synchronized (lifecycle) {
            NodeInfo node = self;
            if (node != null && state == State.STARTED) {
                doMarkBegun(node);
            }
        }
    }

    @Override
    public final boolean othersBegun() {
        return othersBegun;
    }

    /** The store's current view: whether a live member other than this node marked its broadcast begun. */
    protected final void reportOthersBegun(boolean begun) {
        othersBegun = begun;
    }

    @Override
    public final Optional<NodeInfo> self() {
        return Optional.ofNullable(self);
    }

    @Override
    public final List<NodeInfo> members() {
        return List.copyOf(members.values());
    }

    @Override
    public final Watch watch(MembershipListener listener) {
        Subscriber subscriber = new Subscriber(Objects.requireNonNull(listener, "listener"));
        synchronized (table) {
            subscribers.add(subscriber);
            List<NodeInfo> now = List.copyOf(members.values());
            pending.add(() -> now.forEach(subscriber::joined));
        }
        dispatch();
        return () -> {
            subscriber.active = false;
            synchronized (table) {
                subscribers.remove(subscriber);
            }
        };
    }

    @Override
    public final void close() {
        synchronized (lifecycle) {
            if (state == State.CLOSED) {
                return;
            }
            try {
                NodeInfo node = self;
                if (node != null && state == State.STARTED) {
                    try {
                        doLeave(node);
                    } catch (RuntimeException e) {
                        log.warn("{}: could not withdraw {} while closing; other nodes will drop it when its entry"
                                + " expires", this, node, e);
                    }
                }
            } finally {
                self = null;
                state = State.CLOSED;
                synchronized (table) {
                    subscribers.forEach(s -> s.active = false);
                    subscribers.clear();
                }
                doClose();
            }
        }
    }

    /** Whether the registry is closed (or closing: set before {@link #doClose()}). Never blocks. */
    protected final boolean isClosed() {
        return state == State.CLOSED;
    }

    /** The registered node as the subclass returned it from {@link #doRegister}, or null. */
    protected final NodeInfo registeredSelf() {
        return self;
    }

    /**
     * The store's whole current view: members missing from it have left, new or changed ones have joined.
     * A member whose host or port changed leaves and joins again.
     */
    protected final void replaceMembers(Collection<NodeInfo> current) {
        TreeMap<String, NodeInfo> next = new TreeMap<>();
        for (NodeInfo node : current) {
            next.put(node.nodeId(), node);
        }
        synchronized (table) {
            SortedMap<String, NodeInfo> before = members;
            List<NodeInfo> left = new ArrayList<>();
            List<NodeInfo> joined = new ArrayList<>();
            for (NodeInfo old : before.values()) {
                if (!old.equals(next.get(old.nodeId()))) {
                    left.add(old);
                }
            }
            for (NodeInfo now : next.values()) {
                if (!now.equals(before.get(now.nodeId()))) {
                    joined.add(now);
                }
            }
            if (left.isEmpty() && joined.isEmpty()) {
                return;
            }
            members = Collections.unmodifiableSortedMap(next);
            enqueue(left, joined);
        }
        dispatch();
    }

    /** One member appeared or changed its address. */
    protected final void memberJoined(NodeInfo node) {
        synchronized (table) {
            NodeInfo old = members.get(node.nodeId());
            if (node.equals(old)) {
                return;
            }
            TreeMap<String, NodeInfo> next = new TreeMap<>(members);
            next.put(node.nodeId(), node);
            members = Collections.unmodifiableSortedMap(next);
            enqueue(old == null ? List.of() : List.of(old), List.of(node));
        }
        dispatch();
    }

    /** One member is gone; nothing happens if it was not a member. */
    protected final void memberLeft(String nodeId) {
        synchronized (table) {
            NodeInfo old = members.get(nodeId);
            if (old == null) {
                return;
            }
            TreeMap<String, NodeInfo> next = new TreeMap<>(members);
            next.remove(nodeId);
            members = Collections.unmodifiableSortedMap(next);
            enqueue(List.of(old), List.of());
        }
        dispatch();
    }

    // guarded by table
    private void enqueue(List<NodeInfo> left, List<NodeInfo> joined) {
        if (subscribers.isEmpty()) {
            return;
        }
        List<Subscriber> targets = List.copyOf(subscribers);
        pending.add(() -> {
            for (Subscriber s : targets) {
                left.forEach(s::left);
                joined.forEach(s::joined);
            }
        });
    }

    /** Runs queued deliveries outside the lock; one thread at a time, so listeners hear events in order. */
    private void dispatch() {
        synchronized (table) {
            if (draining) {
                return;
            }
            draining = true;
        }
        while (true) {
            Runnable next;
            synchronized (table) {
                next = pending.poll();
                if (next == null) {
                    draining = false;
                    return;
                }
            }
            next.run();
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + group.hash() + "]";
    }

    private static final class Subscriber {
        private final MembershipListener listener;
        private volatile boolean active = true;

        Subscriber(MembershipListener listener) {
            this.listener = listener;
        }

        void joined(NodeInfo node) {
            if (active) {
                try {
                    listener.joined(node);
                } catch (RuntimeException e) {
                    log.warn("membership listener {} failed on joined({})", listener, node, e);
                }
            }
        }

        void left(NodeInfo node) {
            if (active) {
                try {
                    listener.left(node);
                } catch (RuntimeException e) {
                    log.warn("membership listener {} failed on left({})", listener, node, e);
                }
            }
        }
    }
}
