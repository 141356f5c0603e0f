package io.s3broadcast.p2p.protocol;

/**
 * Every message of the peer protocol with its one-byte wire id. Ids 0-8 are BitTorrent's and {@link #REJECT} is
 * BEP 6's Reject Request, so a reader who knows BitTorrent recognises a capture; the rest are ours.
 */
public enum MessageType {
    CHOKE(0x00),
    UNCHOKE(0x01),
    INTERESTED(0x02),
    NOT_INTERESTED(0x03),
    HAVE(0x04),
    BITFIELD(0x05),
    REQUEST(0x06),
    PIECE(0x07),
    CANCEL(0x08),
    REJECT(0x10),
    HANDSHAKE(0x20),
    KEEP_ALIVE(0x21),
    DONE(0x22),
    GOODBYE(0x23),
    AUTH(0x24),
    GIVE_WORK_REQUEST(0x30),
    GIVE_WORK_RESPONSE(0x31),
    WORKS_LEFT(0x32),
    DIGESTS(0x34),
    RELAYED_DIGESTS(0x35);

    private static final MessageType[] BY_ID = new MessageType[256];

    static {
        for (MessageType type : values()) {
            if (BY_ID[type.id] != null) {
                throw new AssertionError("duplicate wire id " + type.id);
            }
            BY_ID[type.id] = type;
        }
    }

    private final int id;

    MessageType(int id) {
        this.id = id;
    }

    /** The wire id, 0-255. */
    public int id() {
        return id;
    }

    /** The type with wire id {@code id}, or {@code null} if there is none. */
    public static MessageType fromId(int id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }
}
