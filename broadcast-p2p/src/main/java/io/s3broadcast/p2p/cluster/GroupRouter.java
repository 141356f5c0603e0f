package io.s3broadcast.p2p.cluster;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.s3broadcast.p2p.protocol.Handshake;
import io.s3broadcast.p2p.protocol.MessageType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Hands each inbound connection of the shared peer server to the run of the group its first frame, the
 * peer's handshake, names. It reads no further than the group field (at most 35 + 255 bytes), checks the
 * frame's length, type and magic on the way, then puts the run's protocol handlers behind itself, passes
 * them the bytes read so far and removes itself; the handshake handler then answers with the run's own
 * handshake. A connection for a group with no run yet (a peer that started first) waits up to
 * {@link #PARK_MILLIS} for the run to register, then is closed; the peer dials again.
 */
final class GroupRouter {

    static final String NAME = "groupRouter";
    /** How long a connection for an unknown group waits for its run. */
    static final long PARK_MILLIS = 10_000;

    /** length(4) type(1), then the handshake body up to the group's length byte. */
    private static final int GROUP_LENGTH_OFFSET = 4 + 1 + Handshake.GROUP_LENGTH_BODY_OFFSET;

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
        runs.put(group, run);
        List<Handler> waiting;
        synchronized (this) {
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
                head = ctx.alloc().buffer(GROUP_LENGTH_OFFSET + 256);
            }
            head.writeBytes(in);
            in.release();
            if (group != null) {
                return; // parked: keep what arrives for the run
            }
            if (head.readableBytes() > GROUP_LENGTH_OFFSET + 1 + Handshake.MAX_STRING_BYTES + 1 + Handshake.MAX_STRING_BYTES
                    + 64 * 1024) {
                drop(); // a peer that keeps sending before any answer is not a peer
                return;
            }
            int readable = head.readableBytes();
            if (readable >= 4) {
                long length = head.getUnsignedInt(0);
                if (length < 1 + GROUP_LENGTH_OFFSET - 4 || length > 1 + Handshake.MAX_BODY_LENGTH) {
                    drop();
                    return;
                }
            }
            if (readable >= 5 && head.getUnsignedByte(4) != MessageType.HANDSHAKE.id()) {
                drop();
                return;
            }
            if (readable >= 9 && head.getInt(5) != Handshake.MAGIC) {
                drop();
                return;
            }
            if (readable <= GROUP_LENGTH_OFFSET) {
                return;
            }
            int groupLength = head.getUnsignedByte(GROUP_LENGTH_OFFSET);
            if (readable < GROUP_LENGTH_OFFSET + 1 + groupLength) {
                return;
            }
            group = head.toString(GROUP_LENGTH_OFFSET + 1, groupLength, StandardCharsets.UTF_8);
            Target run = runs.get(group);
            if (run != null) {
                adopt(run);
                return;
            }
            synchronized (GroupRouter.this) {
                parked.computeIfAbsent(group, g -> new ArrayList<>()).add(this);
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
