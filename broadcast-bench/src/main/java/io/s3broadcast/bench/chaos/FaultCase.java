package io.s3broadcast.bench.chaos;

/**
 * One case of the fault matrix: what it sets up before a trial's nodes start, the fault it injects while they run,
 * and which nodes could still complete. Each trial is a fresh fleet of node processes ({@link MatrixTrial}).
 */
public interface FaultCase {

    /** The case's name in the JSON line. */
    String name();

    /** What it does, for people. */
    String description();

    /** Registry members the case starts itself besides the honest nodes (a corrupting member). */
    default int otherMembers() {
        return 0;
    }

    /** The object of trial {@code t} (default: the matrix's object). */
    default ChaosContext context(ChaosContext matrix, int trial) throws Exception {
        return matrix;
    }

    /** Sets the trial up before its nodes start: rules on the S3 proxy, relays, endpoints. */
    default void prepare(MatrixTrial t) throws Exception {
    }

    /** Injects the fault while the nodes run; may block until they end. */
    void inject(MatrixTrial t) throws Exception;

    /** Whether node {@code i} could complete, given what the trial did to it. */
    default boolean canComplete(MatrixTrial t, int i) {
        return !t.killedForGood(i);
    }

    /** Undoes {@link #prepare} after the nodes ended (rules, stalls, adversaries). */
    default void finish(MatrixTrial t) throws Exception {
    }
}
