package io.s3broadcast.p2p.cluster;

import io.s3broadcast.p2p.protocol.Goodbye;
import io.s3broadcast.p2p.protocol.MessageType;
import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.p2p.protocol.Request;
import java.util.ArrayList;
import java.util.List;

/** A peer connection that records what the run's components send on it; for unit tests without sockets. */
final class FakeLink implements PeerLink {

    final List<PeerMessage> sent = new ArrayList<>();
    Goodbye goodbye;
    int flushes;
    /** The frame limit the fake peer announced. */
    int maxFrameLength = 1 << 20;

    /** A peer with id {@code id} on a new fake link. */
    static Peer peer(String id, int pieceCount) {
        return new Peer(id, new FakeLink(), pieceCount);
    }

    static FakeLink of(Peer p) {
        return (FakeLink) p.link;
    }

    @Override
    public void send(PeerMessage message) {
        sent.add(message);
        flushes++;
    }

    @Override
    public void write(PeerMessage message) {
        sent.add(message);
    }

    @Override
    public void flush() {
        flushes++;
    }

    @Override
    public int maxFrameLength() {
        return maxFrameLength;
    }

    @Override
    public void goodbye(Goodbye.Reason reason, String detail) {
        goodbye = new Goodbye(reason, detail);
    }

    /** The types sent so far, in order. */
    List<MessageType> types() {
        return sent.stream().map(PeerMessage::type).toList();
    }

    /** The pieces requested so far, in order. */
    List<Integer> requested() {
        return sent.stream().filter(m -> m instanceof Request).map(m -> ((Request) m).piece()).toList();
    }

    void clear() {
        sent.clear();
        flushes = 0;
    }
}
