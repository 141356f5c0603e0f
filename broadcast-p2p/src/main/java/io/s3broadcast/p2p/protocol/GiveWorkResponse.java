package io.s3broadcast.p2p.protocol;

import io.s3broadcast.spi.PieceRun;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Answers a {@link GiveWorkRequest}: the works the sender took off the end of its work list and gives to the
 * receiver, in work-list order, or none when it has nothing to give. The receiver appends them to its own list.
 *
 * <p>Body: {@code requestId} (int32), {@code count} (int32), then {@code count} works of 8 bytes each:
 * {@code first} (int32), {@code end} (int32, exclusive). The decoder checks that the body length is
 * {@code 8 + 8 * count}, that every work is a non-empty run inside {@code [0, pieceCount)} and that no two works
 * overlap. A response must fit in the receiver's frame limit ({@link #maxWorks(int)}).
 */
public record GiveWorkResponse(int requestId, List<PieceRun> works) implements PeerMessage {

    /** Bytes of one work on the wire. */
    public static final int WORK_BYTES = 8;

    /** Body bytes before the works. */
    static final int FIXED_BODY_LENGTH = 8;

    public GiveWorkResponse {
        works = List.copyOf(works);
        String overlap = overlap(works);
        if (overlap != null) {
            throw new IllegalArgumentException(overlap);
        }
    }

    /** The response that gives nothing. */
    public static GiveWorkResponse nothing(int requestId) {
        return new GiveWorkResponse(requestId, List.of());
    }

    /** The most works a response can carry to a peer that accepts frames of {@code maxFrameLength} bytes. */
    public static int maxWorks(int maxFrameLength) {
        return Math.max(0, (maxFrameLength - FrameLimits.TYPE_BYTES - FIXED_BODY_LENGTH) / WORK_BYTES);
    }

    public boolean isEmpty() {
        return works.isEmpty();
    }

    /** Two works that overlap, described, or {@code null}. */
    static String overlap(List<PieceRun> works) {
        if (works.size() < 2) {
            return null;
        }
        List<PieceRun> sorted = new ArrayList<>(works);
        sorted.sort(Comparator.comparingInt(PieceRun::first));
        for (int i = 1; i < sorted.size(); i++) {
            PieceRun a = sorted.get(i - 1);
            PieceRun b = sorted.get(i);
            if (b.first() < a.end()) {
                return "works [" + a.first() + ", " + a.end() + ") and [" + b.first() + ", " + b.end() + ") overlap";
            }
        }
        return null;
    }

    @Override
    public MessageType type() {
        return MessageType.GIVE_WORK_RESPONSE;
    }
}
