package io.s3broadcast.bench.chaos;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Duration;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.SSLSocketFactory;

/**
 * A hostile peer written against the wire format in docs/protocol.md, not against the library's classes (as a
 * stranger's script would be): it dials a node, sends a version-2 handshake for the group (whose hash anyone can
 * derive from a HEAD), answers with a proof made with the key it has (none, or a wrong one), then asks for every
 * piece, and counts what comes back.
 */
final class Adversary {

    static final int HANDSHAKE = 0x20;
    static final int AUTH = 0x24;
    static final int GOODBYE = 0x23;
    static final int KEEP_ALIVE = 0x21;
    static final int BITFIELD = 0x05;
    static final int PIECE = 0x07;
    private static final int MAGIC = 0x53334243;
    private static final SecureRandom RANDOM = new SecureRandom();
    /** How long to wait after the proof for a refusal before asking for pieces anyway. */
    private static final int GREED_DELAY_MILLIS = 200;

    /** What one connection got. */
    record Attempt(long objectBytes, int bitfields, int metadata, String refusal) {
    }

    private final String group;
    private final long objectSize;
    private final int pieceSize;
    /** The key the adversary proves with, or null to send a random MAC. */
    private final byte[] key;
    private final boolean claimInsecure;
    private final SSLSocketFactory tls;
    private final String nodeId = "zz-adversary-" + Long.toHexString(RANDOM.nextLong() >>> 16);

    Adversary(String group, long objectSize, int pieceSize, byte[] key, boolean claimInsecure, SSLSocketFactory tls) {
        this.group = group;
        this.objectSize = objectSize;
        this.pieceSize = pieceSize;
        this.key = key;
        this.claimInsecure = claimInsecure;
        this.tls = tls;
    }

    /** One connection to {@code port}: handshake, proof, requests; reads until closed or {@code readFor} passes. */
    Attempt attack(int port, Duration readFor) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(NodeFleet.LOOPBACK, port), 2_000);
            if (tls != null) {
                socket = tls.createSocket(socket, NodeFleet.LOOPBACK, port, true);
            }
            socket.setSoTimeout(GREED_DELAY_MILLIS);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] nonce = new byte[32];
            RANDOM.nextBytes(nonce);
            writeHandshake(out, nonce);
            long bytes = 0;
            int bitfields = 0;
            int metadata = 0;
            String refusal = null;
            boolean authSent = false;
            long deadline = System.nanoTime() + readFor.toNanos();
            while (System.nanoTime() < deadline) {
                int length;
                int type;
                byte[] body;
                try {
                    length = in.readInt();
                    if (length < 1 || length > (16 << 20)) {
                        refusal = "bad frame length " + length;
                        break;
                    }
                    type = in.readUnsignedByte();
                    body = new byte[length - 1];
                    in.readFully(body);
                } catch (SocketTimeoutException e) {
                    if (authSent) {
                        // Not refused at once (it would be, without the secret): behave as if accepted.
                        writeGreed(out);
                        authSent = false;
                    }
                    continue;
                } catch (EOFException e) {
                    break;
                } catch (IOException e) {
                    refusal = refusal == null ? "closed (" + e.getClass().getSimpleName() + ")" : refusal;
                    break;
                }
                switch (type) {
                    case HANDSHAKE -> {
                        ByteBuffer b = ByteBuffer.wrap(body);
                        b.position(4 + 2 + 1);
                        byte[] theirNonce = new byte[32];
                        b.get(theirNonce);
                        int g = b.get() & 0xFF;
                        b.position(b.position() + g);
                        int n = b.get() & 0xFF;
                        byte[] theirId = new byte[n];
                        b.get(theirId);
                        writeAuth(out, nonce, theirNonce, new String(theirId, StandardCharsets.UTF_8));
                        authSent = true;
                    }
                    case GOODBYE -> refusal = "GOODBYE(" + (body.length > 0 ? body[0] : -1) + ")";
                    case PIECE -> bytes += Math.max(0, body.length - 8);
                    case BITFIELD -> bitfields++;
                    case KEEP_ALIVE -> { }
                    default -> metadata++;
                }
            }
            return new Attempt(bytes, bitfields, metadata, refusal);
        } finally {
            socket.close();
        }
    }

    private void writeHandshake(DataOutputStream out, byte[] nonce) throws IOException {
        byte[] g = group.getBytes(StandardCharsets.UTF_8);
        byte[] id = nodeId.getBytes(StandardCharsets.UTF_8);
        out.writeInt(1 + 4 + 2 + 1 + 32 + 1 + g.length + 1 + id.length);
        out.writeByte(HANDSHAKE);
        out.writeInt(MAGIC);
        out.writeShort(2);
        out.writeByte(claimInsecure ? 0 : 1);
        out.write(nonce);
        out.writeByte(g.length);
        out.write(g);
        out.writeByte(id.length);
        out.write(id);
        out.flush();
    }

    private void writeAuth(DataOutputStream out, byte[] ourNonce, byte[] theirNonce, String theirId)
            throws IOException {
        int maxFrame = pieceSize + 1024;
        byte[] mac = new byte[32];
        if (key != null) {
            mac = mac(key, ourNonce, theirNonce, theirId, maxFrame);
        } else {
            RANDOM.nextBytes(mac);
        }
        out.writeInt(1 + 32 + 8 + 4 + 4 + 2);
        out.writeByte(AUTH);
        out.write(mac);
        out.writeLong(objectSize);
        out.writeInt(pieceSize);
        out.writeInt(maxFrame);
        out.writeShort(0);
        out.flush();
    }

    /** Behaves as if accepted: an empty bitfield, interested, and a request for every piece (up to 256). */
    private void writeGreed(DataOutputStream out) throws IOException {
        long pieces = (objectSize + pieceSize - 1) / pieceSize;
        int bitfieldBytes = (int) ((pieces + 7) / 8);
        try {
            out.writeInt(1 + bitfieldBytes);
            out.writeByte(BITFIELD);
            out.write(new byte[bitfieldBytes]);
            out.writeInt(1);
            out.writeByte(0x02); // INTERESTED
            for (int p = 0; p < Math.min(pieces, 256); p++) {
                out.writeInt(5);
                out.writeByte(0x06); // REQUEST
                out.writeInt(p);
            }
            out.flush();
        } catch (IOException e) {
            // the node closed on us already: that is the point
        }
    }

    /** The MAC of docs/protocol.md, computed with {@code key}: right format, wrong secret. */
    private byte[] mac(byte[] key, byte[] ourNonce, byte[] theirNonce, String theirId, int maxFrame) {
        byte[] label = "s3broadcast-auth-v2".getBytes(StandardCharsets.US_ASCII);
        byte[] g = group.getBytes(StandardCharsets.UTF_8);
        byte[] me = nodeId.getBytes(StandardCharsets.UTF_8);
        byte[] them = theirId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(label.length + 1 + 3 + g.length + me.length + them.length + 64 + 18);
        b.put(label).put((byte) 0).put((byte) g.length).put(g).put((byte) me.length).put(me).put((byte) them.length)
                .put(them).put(ourNonce).put(theirNonce).putLong(objectSize).putInt(pieceSize).putInt(maxFrame)
                .putShort((short) 0);
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(b.array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
