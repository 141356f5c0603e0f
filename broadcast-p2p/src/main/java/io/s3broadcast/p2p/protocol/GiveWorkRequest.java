package io.s3broadcast.p2p.protocol;

/**
 * Phase 1, steal algorithm: the sender has downloaded all its works from S3 and asks the receiver to hand over the
 * last {@code ceil(u / 2)} of the {@code u} works of its work list that are not started. Answered by exactly one {@link GiveWorkResponse} carrying the
 * same {@code requestId}, so a late answer to an abandoned request is recognised.
 *
 * <p>Body: {@code requestId} (int32, chosen by the sender).
 */
public record GiveWorkRequest(int requestId) implements PeerMessage {

    @Override
    public MessageType type() {
        return MessageType.GIVE_WORK_REQUEST;
    }
}
