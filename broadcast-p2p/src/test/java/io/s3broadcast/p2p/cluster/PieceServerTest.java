package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.s3broadcast.spi.cluster.ChokeScheduler;
import io.s3broadcast.p2p.protocol.Reject;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which requests a node answers with the piece and which with a {@code REJECT}, on an {@link EmbeddedChannel}. */
class PieceServerTest {

    @TempDir
    Path dir;

    private final ManualScheduler time = new ManualScheduler();
    private final UploadPacer pacer = new UploadPacer(time.ticker());
    private final ChokeScheduler choke = ChokeScheduler.builder().ticker(time.ticker()).slots(2).build();
    private final Set<String> banned = ConcurrentHashMap.newKeySet();
    private final Set<Integer> quarantine = ConcurrentHashMap.newKeySet();
    private final Set<String> exchangedWith = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final List<Integer> written = new ArrayList<>();
    /** Tasks handed to the run's loop, run when a test says so. */
    private final List<Runnable> runLoop = new ArrayList<>();
    private PieceStore store;
    private PieceServer server;
    private PeerHandler handler;
    private EmbeddedChannel channel;

    /** Writes not yet completed, when {@link #holdWrites} is set. */
    private final List<ChannelPromise> inSocket = new ArrayList<>();
    private boolean holdWrites;

    /** Records what it would write; the write succeeds at once, or when the test completes it ({@link #holdWrites}). */
    private final PieceServing recording = new PieceServing() {
        @Override
        public ChannelFuture write(ChannelHandlerContext ctx, PieceStore store, int piece) {
            written.add(piece);
            if (holdWrites) {
                ChannelPromise p = ctx.newPromise();
                inSocket.add(p);
                return p;
            }
            return ctx.newSucceededFuture();
        }

        @Override
        public byte[] digest(PieceStore store, int piece, byte[] sha256) {
            return sha256;
        }
    };

    @BeforeEach
    void setUp() throws Exception {
        store = PieceStore.create(dir.resolve("object.bin"), new PieceLayout(4000, 1000));
        store.completePiece(0, 0);
        store.completePiece(1, 0);
        server = new PieceServer(store, recording, choke, banned::contains, quarantine, exchangedWith, 2, closing::get,
                time.ticker(), runLoop::add, pacer);
        handler = new PeerHandler(null, null, io.s3broadcast.spi.PeerLimits.defaults());
        channel = new EmbeddedChannel(handler);
        handler.peerId = "b";
        choke.peerConnected("b");
        choke.interested("b", true);
        choke.rechoke();
    }

    @AfterEach
    void tearDown() throws Exception {
        channel.finishAndReleaseAll();
        store.close();
    }

    private Object answer(int piece) {
        server.serve(handler, piece);
        return channel.readOutbound();
    }

    @Test
    void aHeldPieceIsServedToAnUnchokedPeer() {
        assertFalse(choke.isChoking("b"));
        assertNull(answer(1));
        assertEquals(List.of(1), written);
        assertEquals(Set.of("b"), exchangedWith);
        assertEquals(0, handler.serving, "the write completed");
    }

    @Test
    void aPieceNotHeldOrUnderACheckIsRejected() {
        assertInstanceOf(Reject.class, answer(2));
        quarantine.add(0);
        assertEquals(new Reject(0), answer(0));
        assertTrue(written.isEmpty());
    }

    @Test
    void aBannedOrChokedPeerOrAClosingRunGetsRejects() {
        banned.add("b");
        assertEquals(new Reject(0), answer(0));
        banned.clear();
        closing.set(true);
        assertEquals(new Reject(0), answer(0));
        closing.set(false);
        handler.peerId = "c"; // connected, never unchoked
        choke.peerConnected("c");
        assertTrue(choke.isChoking("c"));
        assertNull(answer(0), "decided after the messages before it");
        runTheRunsLoop();
        assertEquals(new Reject(0), channel.readOutbound(), "still choked then");
        assertTrue(written.isEmpty());
    }

    @Test
    void aRequestRightBehindAnInterestedThatUnchokesThePeerIsServed() {
        handler.peerId = "c";
        choke.peerConnected("c");
        assertNull(answer(0), "choked: it waits for the run's loop");
        choke.interested("c", true); // the INTERESTED that came before it, handled on the run's loop
        choke.rechoke();
        runTheRunsLoop();
        assertEquals(List.of(0), written);
        assertEquals(0, handler.deferred);
    }

    @Test
    void atMostMaxRequestsPerPeerWaitForTheRunsLoop() {
        handler.peerId = "c";
        choke.peerConnected("c");
        assertNull(answer(0));
        assertNull(answer(1));
        assertEquals(new Reject(0), answer(0), "a third is decided at once");
        runTheRunsLoop();
        assertEquals(new Reject(0), channel.readOutbound());
        assertEquals(new Reject(1), channel.readOutbound());
        assertEquals(0, handler.deferred);
    }

    /** Runs what was handed to the run's loop, then what that handed back to the connection's loop. */
    private void runTheRunsLoop() {
        List<Runnable> tasks = List.copyOf(runLoop);
        runLoop.clear();
        tasks.forEach(Runnable::run);
        channel.runPendingTasks();
    }

    @Test
    void morePiecesInFlightThanAWellBehavedPeerKeepsAreRejected() {
        handler.serving = 2;
        assertEquals(new Reject(0), answer(0));
        assertTrue(written.isEmpty());
    }

    @Test
    void theNextQueuedPieceIsWrittenWhenTheOneBeforeIsInTheSocket() {
        holdWrites = true;
        assertNull(answer(1));
        assertNull(answer(0));
        assertEquals(List.of(1), written, "one piece in the channel at a time");
        assertEquals(2, handler.serving, "both count against maxRequestsPerPeer");
        assertEquals(new Reject(1), answer(1), "a third request is over the limit");

        inSocket.get(0).setSuccess();
        assertEquals(List.of(1, 0), written);
        assertEquals(1, handler.serving);
        inSocket.get(1).setSuccess();
        assertEquals(0, handler.serving);
        assertNull(channel.readOutbound());
        assertEquals(Set.of("b"), exchangedWith);
    }

    @Test
    void aCancelTakesAQueuedRequestOutWithAReject() {
        holdWrites = true;
        assertNull(answer(1));
        assertNull(answer(0));
        server.cancel(handler, 0);
        assertEquals(new Reject(0), channel.readOutbound());
        assertEquals(1, handler.serving);
        server.cancel(handler, 1); // being written: on its way, no answer
        assertNull(channel.readOutbound());
        inSocket.get(0).setSuccess();
        assertEquals(List.of(1), written);
        assertEquals(0, handler.serving);
    }

    @Test
    void aQueuedRequestOfAPeerBannedMeanwhileIsRejectedAtItsTurn() {
        holdWrites = true;
        assertNull(answer(1));
        assertNull(answer(0));
        banned.add("b");
        inSocket.get(0).setSuccess();
        assertEquals(new Reject(0), channel.readOutbound());
        assertEquals(List.of(1), written);
        assertEquals(0, handler.serving);
    }

    @Test
    void aFailedWriteEmptiesTheQueue() {
        holdWrites = true;
        assertNull(answer(1));
        assertNull(answer(0));
        inSocket.get(0).setFailure(new java.io.IOException("connection reset"));
        assertEquals(List.of(1), written);
        assertEquals(0, handler.serving);
        assertTrue(handler.queued.isEmpty());
    }

    @Test
    void aPieceThePacerHoldsBackWaitsOnTheConnectionsLoopWhileOtherMessagesGo() {
        channel.freezeTime();
        pacer.rate(1000); // a piece (1,000 bytes) a second
        assertNull(answer(1), "the first goes at once");
        assertNull(answer(0));
        assertEquals(List.of(1), written, "the second waits for the pacer");
        assertTrue(handler.paced);
        assertEquals(new Reject(2), answer(2), "a request is still answered at once");

        time.advance(Duration.ofMillis(999));
        channel.advanceTimeBy(999, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertEquals(List.of(1), written, "not a second yet");
        time.advance(Duration.ofMillis(1));
        channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertEquals(List.of(1, 0), written);
        assertFalse(handler.paced);
        assertEquals(0, handler.serving);
        assertEquals(2000, pacer.sent(), "counted as they went into the socket");
    }

    @Test
    void aCancelledPieceThatWaitedForThePacerIsNotWrittenWhenItsTurnComes() {
        channel.freezeTime();
        pacer.rate(1000);
        assertNull(answer(1));
        assertNull(answer(0));
        server.cancel(handler, 0);
        assertEquals(new Reject(0), channel.readOutbound());
        time.advance(Duration.ofSeconds(1));
        channel.advanceTimeBy(1, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertEquals(List.of(1), written);
        assertEquals(0, handler.serving);
        assertNull(channel.readOutbound());
    }
}
