package io.s3broadcast.p2p.cluster;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Which members the {@link Dialer} must not dial for a while, and for how long: a member whose dial failed or
 * that was lost as a peer rests for a delay that doubles from 100 ms up to {@link Dialer#MAX_REDIAL_MILLIS} with
 * each failure, back to the shortest once it became a peer; a member that refused this node for having too many
 * peers rests {@link Dialer#REFUSED_MILLIS}, and may be dialled once more meanwhile, insisting ({@link
 * #mayInsist}: a node of a bounded overlay that ran out of members to dial). When a rest ends, {@code restEnded} runs (the overlay fills up
 * again). On the run's loop only; rests run on the injected scheduler.
 */
final class Redials {

    private final ScheduledExecutorService loop;
    private final Runnable restEnded;
    private final Map<String, Integer> attempts = new HashMap<>();
    private final Set<String> resting = new HashSet<>();
    private final Set<String> refusedBy = new HashSet<>();
    private final Set<String> insisted = new HashSet<>();

    Redials(ScheduledExecutorService loop, Runnable restEnded) {
        this.loop = loop;
        this.restEnded = restEnded;
    }

    /** A dial to {@code id} failed, or it was lost as a peer: it rests for the next doubling delay. */
    void failed(String id) {
        int attempt = attempts.merge(id, 1, Integer::sum);
        rest(id, Math.min(Dialer.MAX_REDIAL_MILLIS, 50L << Math.min(attempt, 10)));
    }

    /** {@code id} became a peer: its next failure rests it the shortest delay again. */
    void connected(String id) {
        attempts.remove(id);
    }

    /** {@code id} refused this node for having too many peers. */
    void refused(String id) {
        if (refusedBy.add(id)) {
            loop.schedule(() -> {
                refusedBy.remove(id);
                insisted.remove(id);
            }, Dialer.REFUSED_MILLIS, TimeUnit.MILLISECONDS);
        }
        rest(id, Dialer.REFUSED_MILLIS);
    }

    /** Whether {@code id} refused this node within {@link Dialer#REFUSED_MILLIS}. */
    boolean refusedBy(String id) {
        return refusedBy.contains(id);
    }

    /**
     * Whether {@code id} refused this node within {@link Dialer#REFUSED_MILLIS} and was not dialled again since: one
     * more dial may insist ({@code Connections} takes a member it refused that dials again, up to its accept bound).
     */
    boolean mayInsist(String id) {
        return refusedBy.contains(id) && !insisted.contains(id);
    }

    /** {@code id} is dialled again, insisting: not again until its refusal is forgotten. */
    void insisting(String id) {
        insisted.add(id);
    }

    /** Whether {@code id} rests now: it is not dialled. */
    boolean resting(String id) {
        return resting.contains(id);
    }

    private void rest(String id, long millis) {
        if (!resting.add(id)) {
            return;
        }
        loop.schedule(() -> {
            resting.remove(id);
            restEnded.run();
        }, millis, TimeUnit.MILLISECONDS);
    }
}
