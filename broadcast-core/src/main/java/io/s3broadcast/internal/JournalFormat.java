package io.s3broadcast.internal;

import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.Sha256;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
/**
 * The resume journal's file format, big-endian: the magic {@code S3BJRNL1}, the object's {@link Identity} (its
 * length, its bytes, their CRC32C); then {@value #RECORD}-byte records: piece index, its CRC32C, a kind (stored
 * with SHA-256, stored without, forgotten), 32 bytes of SHA-256 (zeros when none), and the CRC32C of those 41
 * bytes. A reader stops at the first record that is short or whose CRC32C does not match (a torn write): what
 * follows is ignored. {@link PieceJournal} appends the records as pieces land; {@link ResumableStore} and
 * {@link PartFiles} read journals back.
 */
final class JournalFormat {

    static final byte[] MAGIC = "S3BJRNL1".getBytes(StandardCharsets.US_ASCII);
    static final int RECORD = 45;
    private static final byte STORED_WITH_SHA = 1;
    private static final byte STORED = 2;
    private static final byte FORGOTTEN = 3;
    /** An identity is a few hundred bytes; anything much larger is not a header of ours. */
    private static final int MAX_IDENTITY = 1 << 16;
    /** What a temporary file holds: the object's version and the piece layout it was fetched with. */
    record Identity(String bucket, String key, String eTag, String versionId, long size, int pieceSize) {

        static Identity of(ObjectInfo info, PieceLayout layout) {
            return new Identity(info.bucket(), info.key(), info.eTag(), info.versionId().orElse(""), info.size(),
                    layout.pieceSize());
        }

        byte[] encode() {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeUTF(bucket);
                out.writeUTF(key);
                out.writeUTF(eTag);
                out.writeUTF(versionId);
                out.writeLong(size);
                out.writeInt(pieceSize);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return bytes.toByteArray();
        }

        static Identity decode(byte[] bytes) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            return new Identity(in.readUTF(), in.readUTF(), in.readUTF(), in.readUTF(), in.readLong(), in.readInt());
        }

        /** 16 hex digits of the SHA-256 of the identity: part of the temporary file's name. */
        String hash() {
            return HexFormat.of().formatHex(Sha256.of(ByteBuffer.wrap(encode())), 0, 8);
        }

        String object() {
            return "s3://" + bucket + "/" + key;
        }
    }

    /** A stored piece as the journal lists it; {@code sha256} null when it was not kept. */
    record Entry(int crc32c, byte[] sha256) {
    }

    /**
     * A journal as read: its identity, the pieces it lists as stored (by index, in order) and the length of its
     * valid prefix (a torn last record is cut off there before appending).
     */
    record Contents(Identity identity, Map<Integer, Entry> pieces, long validLength) {
    }

    private JournalFormat() {
    }

    /** Writes a new journal's header at the start of {@code channel}, dropping whatever it held. */
    static void writeHeader(FileChannel channel, Identity identity) throws IOException {
        byte[] id = identity.encode();
        ByteBuffer buf = ByteBuffer.allocate(MAGIC.length + 8 + id.length);
        buf.put(MAGIC).putInt(id.length).put(id).putInt(crc(id, 0, id.length)).flip();
        channel.truncate(0);
        writeFully(channel, buf, 0);
    }

    /** Appends records saying {@code pieces} are forgotten (they were listed but found wrong). */
    static void appendForgotten(FileChannel channel, List<Integer> pieces) throws IOException {
        if (pieces.isEmpty()) {
            return;
        }
        ByteBuffer buf = ByteBuffer.allocate(pieces.size() * RECORD);
        for (int p : pieces) {
            record(buf, p, FORGOTTEN, 0, null);
        }
        buf.flip();
        writeFully(channel, buf, channel.size());
    }

    /**
     * Reads a journal from the start of {@code channel}, or returns null when it has no valid header (empty,
     * another format, damaged). Records after the first damaged one are ignored; pieces outside the identity's
     * layout end the reading too.
     */
    static Contents read(FileChannel channel) throws IOException {
        channel.position(0);
        InputStream raw = new BufferedInputStream(Channels.newInputStream(channel), 1 << 16);
        DataInputStream in = new DataInputStream(raw);
        Identity identity;
        long valid;
        try {
            byte[] magic = new byte[MAGIC.length];
            in.readFully(magic);
            int n = in.readInt();
            if (!Arrays.equals(magic, MAGIC) || n < 0 || n > MAX_IDENTITY) {
                return null;
            }
            byte[] id = new byte[n];
            in.readFully(id);
            if (in.readInt() != crc(id, 0, n)) {
                return null;
            }
            identity = Identity.decode(id);
            valid = MAGIC.length + 8L + n;
        } catch (EOFException e) {
            return null;
        }
        if (identity.size() < 0 || identity.pieceSize() <= 0) {
            return null;
        }
        int pieceCount = new PieceLayout(identity.size(), identity.pieceSize()).pieceCount();
        Map<Integer, Entry> pieces = new TreeMap<>();
        byte[] rec = new byte[RECORD];
        while (true) {
            int got = in.readNBytes(rec, 0, RECORD);
            if (got < RECORD) {
                break;
            }
            ByteBuffer b = ByteBuffer.wrap(rec);
            int piece = b.getInt();
            int pieceCrc = b.getInt();
            byte kind = b.get();
            byte[] sha = new byte[Sha256.BYTES];
            b.get(sha);
            if (b.getInt() != crc(rec, 0, RECORD - 4) || piece < 0 || piece >= pieceCount
                    || kind < STORED_WITH_SHA || kind > FORGOTTEN) {
                break;
            }
            switch (kind) {
                case STORED_WITH_SHA -> pieces.put(piece, new Entry(pieceCrc, sha));
                case STORED -> pieces.put(piece, new Entry(pieceCrc, null));
                default -> pieces.remove(piece);
            }
            valid += RECORD;
        }
        return new Contents(identity, pieces, valid);
    }

    /** Appends the record of a stored piece: with its SHA-256 when {@code sha} is not null. */
    static void stored(ByteBuffer buf, int piece, int pieceCrc, byte[] sha) {
        record(buf, piece, sha == null ? STORED : STORED_WITH_SHA, pieceCrc, sha);
    }

    /** Appends the record of a forgotten piece. */
    static void forgotten(ByteBuffer buf, int piece) {
        record(buf, piece, FORGOTTEN, 0, null);
    }

    private static void record(ByteBuffer buf, int piece, byte kind, int pieceCrc, byte[] sha) {
        int start = buf.position();
        buf.putInt(piece).putInt(pieceCrc).put(kind).put(sha == null ? new byte[Sha256.BYTES] : sha);
        buf.putInt(crc(buf.array(), start, RECORD - 4));
    }

    private static int crc(byte[] bytes, int offset, int length) {
        CRC32C c = new CRC32C();
        c.update(bytes, offset, length);
        return (int) c.getValue();
    }

    /** Writes all of {@code buf} at {@code position}; returns the bytes written. */
    static int writeFully(FileChannel channel, ByteBuffer buf, long position) throws IOException {
        int n = 0;
        while (buf.hasRemaining()) {
            n += channel.write(buf, position + n);
        }
        return n;
    }
}
