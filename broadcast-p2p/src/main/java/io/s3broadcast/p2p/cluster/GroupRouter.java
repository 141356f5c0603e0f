package io.s3broadcast.p2p.cluster;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.s3broadcast.p2p.protocol.HandshakeGroup;
import io.s3broadcast.p2p.protocol.ProtocolException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Hands each inbound connection of the shared peer server to the run of the group its first frame, the
 * peer's handshake, names ({@link HandshakeGroup} reads it: no further than the group field, checking the
 * frame's length, type and magic on the way), then puts the run's protocol handlers behind itself, passes
 * them the bytes read so far and removes itself; the handshake handler then answers with the run's own
 * handshake. A connection for a group with no run yet (a peer that started first) waits up to
 * {@link #PARK_MILLIS} for the run to register, then is closed; the peer dials again.
 */
final class GroupRouter {

    static final String NAME = "groupRouter";
    /** How long a connection for an unknown group waits for its run. */
    static final long PARK_MILLIS = 10_000;

    /** What a connection is handed to: a run, for the group it serves. */
    interface Target {
        /** Installs the protocol handlers on {@code channel} (on its event loop); false to refuse it. */
        boolean adoptInbound(io.netty.channel.Channel channel);
    }

    private final Map<String, Target> runs = new ConcurrentHashMap<>();
    /** Connections waiting for the run of their group; guarded by this. */
    private final Map<String, List<Handler>> parked = new HashMap<>();

    Handler newHandler() {
        return new Handler();
    }

    /** {@code run} now takes connections for {@code group}, including those parked for it. */
    void register(String group, Target run) {
        List<Handler> waiting;
        synchronized (this) {
            runs.put(group, run);
            waiting = parked.remove(group);
        }
        if (waiting != null) {
            for (Handler h : waiting) {
                h.ctx.executor().execute(() -> h.adopt(run));
            }
        }
    }

    void unregister(String group, Target run) {
        runs.remove(group, run);
    }

    /**
     * The run of {@code group}, or null after parking {@code h} for it: one step under the lock {@link #register}
     * takes, so a run registered while a connection looks for it either is found or finds the connection parked
     * (a connection parked just after the run registered would wait out {@link #PARK_MILLIS} and be dropped).
     */
    private synchronized Target runOrPark(String group, Handler h) {
        Target run = runs.get(group);
        if (run == null) {
            parked.computeIfAbsent(group, g -> new ArrayList<>()).add(h);
        }
        return run;
    }

    /** Reads the first frame's head; one per inbound channel, on its event loop. */
    final class Handler extends ChannelInboundHandlerAdapter {

        private ChannelHandlerContext ctx;
        private ByteBuf head;
        private String group;
        private boolean done;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (done || !(msg instanceof ByteBuf in)) {
                ReferenceCountUtil.release(msg);
                return;
            }
            if (head == null) {
                head = ctx.alloc().buffer(512);
            }
            head.writeBytes(in);
            in.release();
            if (group != null) {
                return; // parked: keep what arrives for the run
            }
            try {
                group = HandshakeGroup.peek(head);
            } catch (ProtocolException e) {
                drop(); // not a peer, or one that keeps sending before any answer
                return;
            }
            if (group == null) {
                return;
            }
            Target run = runOrPark(group, this);
            if (run != null) {
                adopt(run);
                return;
            }
            ctx.executor().schedule(() -> {
                boolean removed;
                synchronized (GroupRouter.this) {
                    List<Handler> list = parked.get(group);
                    removed = list != null && list.remove(this);
                    if (list != null && list.isEmpty()) {
                        parked.remove(group);
                    }
                }
                if (removed) {
                    drop();
                }
            }, PARK_MILLIS, TimeUnit.MILLISECONDS);
            ctx.read();
        }

        /** Puts {@code run}'s handlers behind this one and passes them what was read. On the channel's loop. */
        void adopt(Target run) {
            if (done || !ctx.channel().isActive()) {
                return;
            }
            done = true;
            ByteBuf bytes = head;
            head = null;
            if (!run.adoptInbound(ctx.channel())) {
                if (bytes != null) {
                    bytes.release();
                }
                ctx.close();
                return;
            }
            ctx.pipeline().remove(this);
            if (bytes != null) {
                ctx.pipeline().fireChannelRead(bytes);
            }
        }

        private void drop() {
            done = true;
            releaseHead();
            ctx.close();
        }

        private void releaseHead() {
            if (head != null) {
                head.release();
                head = null;
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            releaseHead();
            ctx.fireChannelInactive();
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            releaseHead();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            drop();
        }
    }
}
