package io.s3broadcast.p2p.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceRun;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Makes the inputs of {@link PipelineFuzzTest}: what a remote peer sends, as frames: its handshake and a proof
 * that is valid for the local node's nonce, then valid frames of every other message type (taken from a corpus
 * encoded once per layout), and then mutated: frames dropped, duplicated or swapped, length fields that lie,
 * bytes flipped, counts and indexes overwritten with edge values, bytes inserted and deleted, the stream cut short
 * or followed by garbage. Some inputs are pure noise. Everything is drawn from one {@link SplittableRandom}, so
 * an input is reproduced from its seed.
 */
final class FuzzFrames {

    /** Values that sit on the edges of the checks: for length fields, counts, indexes. */
    private static final int[] EDGES = {0, 1, -1, 2, 7, 8, 9, 10, 11, 12, 31, 32, 33, 40, 255, 256, 1000, 1024, 1025,
        65_535, 65_536, 1 << 20, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE - 3};

    private final PieceLayout layout;
    private final int maxFrameLength;
    private final List<byte[]> corpus;
    private final EmbeddedChannel encoder = new EmbeddedChannel(MessageEncoder.INSTANCE);

    FuzzFrames(PieceLayout layout, int maxFrameLength) {
        this.layout = layout;
        this.maxFrameLength = maxFrameLength;
        this.corpus = corpus(new SplittableRandom(layout.objectSize()));
    }

    /** What the remote peer sends and how it was made. */
    record Input(byte[] stream, int prefixLength, boolean prefixIntact, boolean acceptable, int bodyFrames,
            List<String> mutations) {
    }

    /** What the remote peer's handshake and proof say, besides its nonce. */
    record Remote(Handshake handshake, Auth auth, boolean acceptable, String variant) {
    }

    /** The wire bytes of {@code message}. */
    byte[] encode(PeerMessage message) {
        encoder.writeOutbound(message);
        ByteBuf all = Wire.drainOutbound(encoder);
        try {
            byte[] bytes = new byte[all.readableBytes()];
            all.readBytes(bytes);
            return bytes;
        } finally {
            all.release();
        }
    }

    /**
     * A remote peer towards {@code local} (whose nonce it answers), proving with {@code authenticator}; mostly
     * one the local node accepts, sometimes one with a valid proof that it must still refuse.
     */
    Remote remote(SplittableRandom r, Handshake local, PeerPipeline.Side localSide, PeerAuthenticator authenticator,
            PeerAuthenticator wrongSecret) {
        byte[] nonce = new byte[Handshake.NONCE_BYTES];
        r.nextBytes(nonce);
        String nodeId = r.nextInt(8) == 0 ? "pair-\u00e9\u4e2d\ud83d\ude00-" + r.nextInt(1000) : "node-remote-" + r.nextInt(1000);
        String group = local.group();
        boolean authenticated = local.authenticated();
        long objectSize = layout.objectSize();
        int pieceSize = layout.pieceSize();
        int peerMaxFrame = FrameLimits.minimum(layout) + r.nextInt(1 << 20);
        PeerAuthenticator prover = authenticator;
        String variant = "valid";
        if (r.nextInt(4) == 0) {
            switch (r.nextInt(6)) {
                case 0 -> {
                    variant = "self";
                    nodeId = local.nodeId();
                }
                case 1 -> {
                    variant = "other group";
                    group = "other-" + group;
                }
                case 2 -> {
                    variant = "other layout";
                    objectSize += 1 + r.nextInt(5000);
                }
                case 3 -> {
                    variant = "frame limit too small";
                    peerMaxFrame = 1 + r.nextInt(FrameLimits.minimum(layout) - 1);
                }
                case 4 -> {
                    variant = "other secret";
                    prover = wrongSecret;
                }
                default -> {
                    variant = "authentication flag differs";
                    authenticated = !authenticated;
                }
            }
        }
        Handshake handshake = new Handshake(Handshake.VERSION, group, nodeId, nonce, authenticated);
        Auth auth = prover.prove(localSide == PeerPipeline.Side.ACCEPTOR, handshake, local, objectSize, pieceSize,
                peerMaxFrame, r.nextInt(0x10000));
        return new Remote(handshake, auth, variant.equals("valid"), variant);
    }

    /** The remote's handshake and proof, some valid frames, mutated; or, now and then, pure noise. */
    Input input(SplittableRandom r, Remote remote) {
        List<String> mutations = new ArrayList<>();
        if (r.nextInt(20) == 0) {
            byte[] noise = new byte[r.nextInt(FrameLimits.LENGTH_FIELD_BYTES, 2048)];
            r.nextBytes(noise);
            if (r.nextBoolean()) {
                // Noise with a plausible first length, so it gets past the frame decoder now and then.
                int length = r.nextInt(1, Math.min(noise.length, 600));
                noise[0] = 0;
                noise[1] = 0;
                noise[2] = (byte) (length >>> 8);
                noise[3] = (byte) length;
            }
            mutations.add("noise");
            return new Input(noise, 0, false, remote.acceptable(), 0, mutations);
        }
        List<byte[]> frames = new ArrayList<>();
        frames.add(encode(remote.handshake()));
        frames.add(encode(remote.auth()));
        int bodyFrames = r.nextInt(13);
        for (int i = 0; i < bodyFrames; i++) {
            frames.add(corpus.get(r.nextInt(corpus.size())));
        }
        byte[] original = concat(frames);
        int prefixLength = frames.get(0).length + frames.get(1).length;
        int rounds = r.nextInt(10) == 0 ? 0 : 1 + Math.min(r.nextInt(6), r.nextInt(6));
        for (int i = 0; i < rounds; i++) {
            mutateFrames(r, frames, mutations);
        }
        byte[] stream = concat(frames);
        if (rounds > 0 && r.nextInt(3) == 0) {
            stream = mutateStream(r, stream, mutations);
        }
        boolean intact = stream.length >= prefixLength
                && Arrays.equals(stream, 0, prefixLength, original, 0, prefixLength);
        return new Input(stream, prefixLength, intact, remote.acceptable(), bodyFrames, mutations);
    }

    private void mutateFrames(SplittableRandom r, List<byte[]> frames, List<String> log) {
        int i = r.nextInt(frames.size());
        byte[] f = frames.get(i);
        switch (r.nextInt(8)) {
            case 0 -> {
                frames.remove(i);
                log.add("drop frame " + i);
                if (frames.isEmpty()) {
                    frames.add(new byte[0]);
                }
            }
            case 1 -> {
                frames.add(r.nextInt(frames.size() + 1), f);
                log.add("duplicate frame " + i);
            }
            case 2 -> {
                int j = r.nextInt(frames.size());
                frames.set(i, frames.get(j));
                frames.set(j, f);
                log.add("swap frames " + i + " and " + j);
            }
            case 3 -> {
                frames.set(i, lieInLength(r, f, log));
            }
            case 4 -> {
                if (f.length > 0) {
                    byte[] g = f.clone();
                    int at = r.nextInt(g.length);
                    g[at] ^= (byte) r.nextInt(1, 256);
                    frames.set(i, g);
                    log.add("flip byte " + at + " of frame " + i);
                }
            }
            case 5 -> {
                if (f.length >= 4) {
                    byte[] g = f.clone();
                    int at = r.nextInt(g.length - 3);
                    putInt(g, at, edge(r));
                    frames.set(i, g);
                    log.add("edge int at " + at + " of frame " + i);
                }
            }
            case 6 -> {
                if (f.length > 0) {
                    byte[] g = f.clone();
                    int at = r.nextInt(g.length);
                    g[at] = (byte) (r.nextBoolean() ? 0 : 0xFF);
                    frames.set(i, g);
                    log.add("byte " + at + " of frame " + i + " to an extreme");
                }
            }
            default -> {
                // Cut a frame short and keep its length field: the rest of the stream shifts into it.
                if (f.length > 5) {
                    frames.set(i, Arrays.copyOf(f, r.nextInt(4, f.length)));
                    log.add("cut frame " + i + " short");
                }
            }
        }
    }

    private byte[] lieInLength(SplittableRandom r, byte[] f, List<String> log) {
        if (f.length < 4) {
            return f;
        }
        int actual = f.length - 4;
        int[] lies = {0, 1, actual - 1, actual + 1, actual + r.nextInt(1, 5000), maxFrameLength, maxFrameLength + 1,
            maxFrameLength + 4, -1, Integer.MAX_VALUE, edge(r), r.nextInt()};
        int lie = lies[r.nextInt(lies.length)];
        byte[] g = f.clone();
        putInt(g, 0, lie);
        log.add("length field " + actual + " -> " + Integer.toUnsignedString(lie));
        return g;
    }

    private byte[] mutateStream(SplittableRandom r, byte[] stream, List<String> log) {
        int at = stream.length == 0 ? 0 : r.nextInt(stream.length + 1);
        switch (r.nextInt(4)) {
            case 0 -> {
                byte[] extra = new byte[r.nextInt(1, 17)];
                r.nextBytes(extra);
                log.add("insert " + extra.length + " bytes at " + at);
                return concat(List.of(Arrays.copyOf(stream, at), extra,
                        Arrays.copyOfRange(stream, at, stream.length)));
            }
            case 1 -> {
                int end = Math.min(stream.length, at + r.nextInt(1, 17));
                log.add("delete bytes [" + at + ", " + end + ")");
                return concat(List.of(Arrays.copyOf(stream, at), Arrays.copyOfRange(stream, end, stream.length)));
            }
            case 2 -> {
                log.add("truncate at " + at);
                return Arrays.copyOf(stream, at);
            }
            default -> {
                byte[] garbage = new byte[r.nextInt(1, 300)];
                r.nextBytes(garbage);
                log.add("append " + garbage.length + " bytes of garbage");
                return concat(List.of(stream, garbage));
            }
        }
    }

    private static int edge(SplittableRandom r) {
        return EDGES[r.nextInt(EDGES.length)];
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    private static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** Valid encodings of every message that may follow the handshake, several of each. */
    private List<byte[]> corpus(SplittableRandom r) {
        int pieces = layout.pieceCount();
        List<PeerMessage> messages = new ArrayList<>(List.of(Choke.INSTANCE, Unchoke.INSTANCE, Interested.INSTANCE,
                NotInterested.INSTANCE, KeepAlive.INSTANCE, Done.INSTANCE));
        for (int i = 0; i < 4; i++) {
            int piece = r.nextInt(pieces);
            messages.add(new Have(piece));
            messages.add(new Request(r.nextInt(pieces)));
            messages.add(new Cancel(r.nextInt(pieces)));
            messages.add(new Reject(r.nextInt(pieces)));
            messages.add(BitfieldMessage.of(pieces, p -> r.nextBoolean()));
            messages.add(new GiveWorkRequest(r.nextInt()));
            messages.add(new WorksLeft(r.nextInt(pieces + 1)));
            int first = r.nextInt(pieces);
            int count = 1 + r.nextInt(Math.min(pieces - first, Digests.maxDigests(maxFrameLength)));
            byte[] digests = new byte[count * Digests.DIGEST_BYTES];
            r.nextBytes(digests);
            byte[] mac = new byte[Digests.MAC_BYTES];
            r.nextBytes(mac);
            messages.add(new Digests(first, digests, mac));
            List<PieceRun> works = new ArrayList<>();
            for (int start = r.nextInt(2); start < pieces; ) {
                int end = Math.min(pieces, start + 1 + r.nextInt(3));
                works.add(new PieceRun(start, end));
                start = end + r.nextInt(3);
            }
            messages.add(new GiveWorkResponse(r.nextInt(), works));
            Goodbye.Reason[] reasons = Goodbye.Reason.values();
            messages.add(new Goodbye(reasons[r.nextInt(reasons.length)], i == 0 ? "" : "detail \u00e9 " + r.nextInt()));
        }
        List<byte[]> frames = new ArrayList<>();
        for (PeerMessage m : messages) {
            frames.add(encode(m));
        }
        for (int i = 0; i < 8; i++) {
            int piece = i < 2 ? pieces - 1 : r.nextInt(pieces);
            byte[] data = new byte[layout.length(piece)];
            r.nextBytes(data);
            ByteBuf buf = Unpooled.wrappedBuffer(data);
            frames.add(encode(new Piece(piece, Piece.crc32c(buf), buf)));
        }
        return List.copyOf(frames);
    }

    void close() {
        encoder.finishAndReleaseAll();
    }
}
