package io.s3broadcast.spi.cluster;

import java.util.Objects;
import java.util.function.IntSupplier;

/**
 * The cooperative policy's cap on peers unchoked at once: at most {@value #UNCHOKED_PER_PIECE} per piece this node
 * holds. A node with a few pieces serves them to a few peers at a time at a few times the rate, and those forward
 * them sooner than if it split its upload among every peer that wants them; a peer that got them loses interest and
 * frees its slot at once. (The bench's simulator, 64 MiB in 1 MiB pieces, 16 peers: the slowest node 1.25 -> 1.20
 * T* at N = 100 and 1.46 -> 1.36 T* at N = 1,000 for the fluid model alone, N = 4-16 no worse; docs/scale.md.)
 *
 * <p>{@link ChokeScheduler} gives it to the {@linkplain ChokePolicy#cooperative cooperative} policy when built with
 * {@code piecesHeld}; the policy reads it at every decision, so a piece stored since the last one counts at once.
 */
final class PiecesHeldCap implements IntSupplier {

    /** Peers unchoked at most per piece this node holds. */
    static final int UNCHOKED_PER_PIECE = 8;

    private final IntSupplier piecesHeld;

    /** @param piecesHeld how many pieces this node holds now (thread-safe) */
    PiecesHeldCap(IntSupplier piecesHeld) {
        this.piecesHeld = Objects.requireNonNull(piecesHeld, "piecesHeld");
    }

    /** The most peers to unchoke now: {@value #UNCHOKED_PER_PIECE} per piece held, within {@code int}. */
    @Override
    public int getAsInt() {
        return (int) Math.min(Integer.MAX_VALUE, (long) UNCHOKED_PER_PIECE * piecesHeld.getAsInt());
    }
}
