package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.s3broadcast.Broadcast;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.Strategy;
import io.s3broadcast.p2p.protocol.BitfieldMessage;
import io.s3broadcast.p2p.protocol.Digests;
import io.s3broadcast.p2p.protocol.Done;
import io.s3broadcast.p2p.protocol.GiveWorkResponse;
import io.s3broadcast.p2p.protocol.Goodbye;
import io.s3broadcast.p2p.protocol.HandshakeCompleted;
import io.s3broadcast.p2p.protocol.Have;
import io.s3broadcast.p2p.protocol.KeepAlive;
import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.p2p.protocol.PeerPipeline;
import io.s3broadcast.p2p.protocol.Request;
import io.s3broadcast.p2p.protocol.Unchoke;
import io.s3broadcast.p2p.protocol.WorksLeft;
import io.s3broadcast.registry.GroupId;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.Sha256;
import io.s3broadcast.testkit.FreePorts;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member that holds the secret but lies: one real node over real sockets and S3, and scripted peers that
 * authenticate properly and then break a rule. Each is told {@code GOODBYE(MISBEHAVIOUR)} with the reason and
 * closed, and the node still publishes the exact object.
 */
@RealS3
class MisbehavingMemberIT {

    private static final int PIECE_SIZE = 64 * 1024;
    private static final String SECRET = "misbehaving-member-it-secret";

    @TempDir
    Path dir;

    /**
     * A scripted peer: on authentication it sends what {@code script} returns (all but the first message held back
     * until {@code release} completes), and records what it is told.
     */
    private static final class Liar extends ChannelInboundHandlerAdapter {
        final Function<PieceLayout, List<PeerMessage>> script;
        final CompletableFuture<Void> release;
        final CompletableFuture<Goodbye> goodbye = new CompletableFuture<>();
        final List<Integer> requested = new CopyOnWriteArrayList<>();

        Liar(Function<PieceLayout, List<PeerMessage>> script, CompletableFuture<Void> release) {
            this.script = script;
            this.release = release;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof HandshakeCompleted hc) {
                List<PeerMessage> messages = script.apply(hc.layout());
                ctx.writeAndFlush(messages.get(0));
                release.thenRun(() -> ctx.executor().execute(() -> {
                    messages.subList(1, messages.size()).forEach(ctx::write);
                    ctx.flush();
                }));
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Goodbye g) {
                goodbye.complete(g);
            } else if (msg instanceof Request r) {
                requested.add(r.piece()); // and never answered
            } else if (msg instanceof KeepAlive) {
                ctx.writeAndFlush(KeepAlive.INSTANCE); // not idle, however long it is held back
            }
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            goodbye.complete(null);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            goodbye.completeExceptionally(cause);
            ctx.close();
        }
    }

    @Test
    void liesAndUnsolicitedMessagesCloseTheConnectionWithTheReason(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("object.bin"), 2L << 20, 3);
        PieceLayout layout = new PieceLayout(object.size(), PIECE_SIZE);
        int pieces = layout.pieceCount();
        List<Integer> ports = FreePorts.loopback(2);
        // The second member is the staller (liar 6): connected first, its BITFIELD sent and the rest held back until
        // the other liars are done, it keeps the node incomplete, so serving, however slow the machine (an absent
        // member was waited for only the connect grace, 5 s, which seven liars in turn could overrun when loaded).
        String registry = "static:127.0.0.1:" + ports.get(0) + ",127.0.0.1:" + ports.get(1);
        // Long enough that the staller, dropped at its third request unanswered, dials again within its rest
        // (RestingPeers: the request timeout) however loaded the machine.
        System.setProperty("s3broadcast.requestTimeout", "5s");
        Broadcast.Builder builder;
        try {
            builder = Broadcast.builder();
        } finally {
            System.clearProperty("s3broadcast.requestTimeout");
        }
        NioEventLoopGroup loops = new NioEventLoopGroup(1);
        try (Broadcast node = builder
                .endpoint(s3.endpoint()).region(s3.region()).credentialsProvider(s3.credentialsProvider())
                .destinationDirectory(dir).strategy(Strategy.OVERLAP).registry(registry)
                .listen(new InetSocketAddress("127.0.0.1", ports.get(0))).advertisedHost("127.0.0.1")
                .expectNodes(1, Duration.ofSeconds(10)).pieceSize(PIECE_SIZE).rangeSize(4L * PIECE_SIZE)
                .connections(1).workSize(4).linger(Duration.ofSeconds(5)).secret(SECRET)
                .build()) {
            FetchHandle handle = node.fetch(FetchRequest.of(object.bucket(), object.key()));
            String group = GroupId.of(object.bucket(), object.key(), object.eTag(), null).hash();

            List<Liar> liars = new ArrayList<>();
            List<String> expected = List.of("before its BITFIELD", "second BITFIELD", "sent DONE holding 0 of " + pieces,
                    "claims 1 works left while it lacks only 0 pieces", "GIVE_WORK_RESPONSE 77 that this node did not ask for",
                    "DIGESTS for pieces [0, " + pieces + ") whose MAC does not match the group secret", "did not answer");
            List<Function<PieceLayout, List<PeerMessage>>> scripts = List.of(
                    l -> List.of(new Have(0)),
                    l -> List.of(BitfieldMessage.of(l.pieceCount(), p -> false), BitfieldMessage.of(l.pieceCount(), p -> false)),
                    l -> List.of(BitfieldMessage.of(l.pieceCount(), p -> false), Done.INSTANCE),
                    l -> List.of(BitfieldMessage.of(l.pieceCount(), p -> true), new WorksLeft(1)),
                    l -> List.of(BitfieldMessage.of(l.pieceCount(), p -> false),
                            new GiveWorkResponse(77, List.of(new PieceRun(0, 1)))),
                    // True digests whose MAC was not made with the group secret (forged, or altered on the way).
                    l -> List.of(BitfieldMessage.of(l.pieceCount(), p -> false), new Digests(0,
                            trueDigests(object, l, s3, group, "liar-5").bytes(), new byte[Digests.MAC_BYTES])),
                    // Claims every piece, vouches for them with their true digests (a node asks only for pieces a
                    // member vouched for: it comes as the member that never started), unchokes, and never answers.
                    l -> List.of(BitfieldMessage.of(l.pieceCount(), p -> true), trueDigests(object, l, s3, group,
                                    NodeInfo.idFor("127.0.0.1", ports.get(1))),
                            new WorksLeft(0), Unchoke.INSTANCE));
            int staller = scripts.size() - 1;
            CompletableFuture<Void> releaseStaller = new CompletableFuture<>();
            for (int i = 0; i < scripts.size(); i++) {
                liars.add(new Liar(scripts.get(i), i == staller ? releaseStaller : CompletableFuture.completedFuture(null)));
            }
            Channel stallerChannel = connect(liars.get(staller), NodeInfo.idFor("127.0.0.1", ports.get(1)), group,
                    layout, loops, ports.get(0));
            for (int i = 0; i < scripts.size(); i++) {
                Liar liar = liars.get(i);
                Channel ch = i == staller ? stallerChannel : connect(liar, "liar-" + i, group, layout, loops, ports.get(0));
                if (i == staller) {
                    releaseStaller.complete(null);
                }
                Goodbye g = liar.goodbye.get(30, TimeUnit.SECONDS);
                ch.close();
                assertThat(g).as("liar %d", i).isNotNull();
                assertThat(g.reason()).as("liar %d: %s", i, g.detail())
                        .isEqualTo(i == 5 ? Goodbye.Reason.BAD_PIECE : Goodbye.Reason.MISBEHAVIOUR);
                assertThat(g.detail()).contains(expected.get(i));
            }
            assertThat(liars.get(6).requested).as("the staller was asked for pieces").isNotEmpty();
            // Slow is not lying: the staller rests rather than being banned, so its dial within the rest is refused
            // as by a node with all the peers it takes, which rests it on the dialler's side too.
            Liar again = new Liar(l -> List.of(BitfieldMessage.of(l.pieceCount(), p -> false)),
                    CompletableFuture.completedFuture(null));
            Channel againChannel = connect(again, NodeInfo.idFor("127.0.0.1", ports.get(1)), group, layout, loops,
                    ports.get(0));
            Goodbye refused = again.goodbye.get(30, TimeUnit.SECONDS);
            againChannel.close();
            assertThat(refused).as("the staller dialling again").isNotNull();
            assertThat(refused.reason()).isEqualTo(Goodbye.Reason.TOO_MANY_CONNECTIONS);
            assertThat(refused.detail()).contains("resting");

            CompletedFetch done = handle.completionFuture().get(120, TimeUnit.SECONDS);
            assertThat(Swarm.sha256(done.path())).isEqualTo(object.sha256());
            assertThat(done.bytesFromPeers()).isZero();
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private static Channel connect(Liar liar, String id, String group, PieceLayout layout, NioEventLoopGroup loops,
            int port) {
        PeerPipeline pipeline = PeerPipeline.builder().group(group).nodeId(id).layout(layout)
                .secret(SECRET.getBytes(StandardCharsets.UTF_8)).exchangeHandler(() -> liar).build();
        return new Bootstrap().group(loops).channel(NioSocketChannel.class)
                .handler(pipeline.initializer(PeerPipeline.Side.DIALER))
                .connect("127.0.0.1", port).syncUninterruptibly().channel();
    }

    /** DIGESTS of every piece of {@code object}, as member {@code id} that read it from S3 would send them, signed. */
    private static Digests trueDigests(StoredObject object, PieceLayout layout, S3Fixture s3, String group, String id) {
        byte[] data = s3.getBytes(object.key());
        byte[] all = new byte[layout.pieceCount() * Sha256.BYTES];
        for (int p = 0; p < layout.pieceCount(); p++) {
            byte[] d = Sha256.of(java.nio.ByteBuffer.wrap(data, (int) layout.offset(p), layout.length(p)));
            System.arraycopy(d, 0, all, p * Sha256.BYTES, Sha256.BYTES);
        }
        return PeerPipeline.builder().group(group).nodeId(id).layout(layout)
                .secret(SECRET.getBytes(StandardCharsets.UTF_8)).build().signDigests(0, all);
    }

}
