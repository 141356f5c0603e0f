package io.s3broadcast.p2p.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The sender is about to close the connection, and says why, so the receiver can tell a deliberate close (done,
 * refused at the handshake, a duplicate connection) from a crash and log something useful. Best effort: a
 * connection may also just close.
 *
 * <p>Body: {@code reason} (uint8, {@link Reason#code()}), detail length (uint16, at most
 * {@value #MAX_DETAIL_BYTES}), detail (UTF-8, for people; longer text is cut at a code point).
 */
public record Goodbye(Reason reason, String detail) implements PeerMessage {

    /** Longest detail in UTF-8 bytes. */
    public static final int MAX_DETAIL_BYTES = 1024;

    /** Body bytes before the detail. */
    static final int FIXED_BODY_LENGTH = 3;

    /** Longest body. */
    public static final int MAX_BODY_LENGTH = FIXED_BODY_LENGTH + MAX_DETAIL_BYTES;

    public Goodbye {
        Objects.requireNonNull(reason, "reason");
        detail = truncate(Objects.requireNonNull(detail, "detail"));
    }

    public Goodbye(Reason reason) {
        this(reason, "");
    }

    private static String truncate(String detail) {
        if (detail.length() * 3L <= MAX_DETAIL_BYTES || detail.getBytes(StandardCharsets.UTF_8).length <= MAX_DETAIL_BYTES) {
            return detail;
        }
        int bytes = 0;
        int end = 0;
        while (end < detail.length()) {
            int cp = detail.codePointAt(end);
            int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + n > MAX_DETAIL_BYTES) {
                break;
            }
            bytes += n;
            end += Character.charCount(cp);
        }
        return detail.substring(0, end);
    }

    @Override
    public MessageType type() {
        return MessageType.GOODBYE;
    }

    /** Why a connection is closed. */
    public enum Reason {
        /** Nothing more to exchange (both done, or this node is shutting down in an orderly way). */
        NORMAL(0),
        /** The peer broke the protocol. */
        PROTOCOL_ERROR(1),
        /** The peer's handshake did not arrive in time. */
        HANDSHAKE_TIMEOUT(2),
        /** The peer speaks another protocol version. */
        VERSION_MISMATCH(3),
        /** The peer is in another group (other object, ETag or group name). */
        GROUP_MISMATCH(4),
        /** The peer cuts the object into other pieces (object size or piece size differ). */
        LAYOUT_MISMATCH(5),
        /** The peer's frame limit is too small for the messages it would have to receive. */
        FRAME_LIMIT_TOO_SMALL(6),
        /** The peer has our own node id: we connected to ourselves (or ids are not unique). */
        SELF_CONNECTION(7),
        /** We already have a connection to this peer and keep the other one. */
        DUPLICATE_CONNECTION(8),
        /** The peer could not prove that it holds the group's secret, or one side has a secret and the other none. */
        AUTH_FAILED(9),
        /** This node has as many connections as it accepts. */
        TOO_MANY_CONNECTIONS(10),
        /**
         * The peer sent a message this node did not ask for or that is out of state (a second bitfield, an
         * unsolicited work response), or a claim it cannot back ({@code DONE} without every piece, more works
         * left than pieces missing).
         */
        MISBEHAVIOUR(11),
        /**
         * The peer sent a piece whose SHA-256 differs from the digest of the node that read it from S3, or
         * vouched for a digest that S3 disproved; the detail names the piece. The peer is banned.
         */
        BAD_PIECE(12);

        private static final Reason[] BY_CODE = new Reason[256];

        static {
            for (Reason r : values()) {
                BY_CODE[r.code] = r;
            }
        }

        private final int code;

        Reason(int code) {
            this.code = code;
        }

        /** The wire code, 0-255. */
        public int code() {
            return code;
        }

        /** The reason with wire code {@code code}, or {@code null}. */
        public static Reason fromCode(int code) {
            return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
        }
    }
}
