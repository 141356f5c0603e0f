package io.s3broadcast.p2p.protocol;

/**
 * Phase 1, steal algorithm: how many works are left in the sender's work list. An idle node sends its
 * {@link GiveWorkRequest} to the peer with most works left, which it learns from these; the count is advisory
 * (it may be stale by the time the request arrives, and the response says what was really given).
 *
 * <p>Body: {@code works} (int32, {@code >= 0}).
 */
public record WorksLeft(int works) implements PeerMessage {

    public WorksLeft {
        if (works < 0) {
            throw new IllegalArgumentException("works must be >= 0, was " + works);
        }
    }

    @Override
    public MessageType type() {
        return MessageType.WORKS_LEFT;
    }
}
