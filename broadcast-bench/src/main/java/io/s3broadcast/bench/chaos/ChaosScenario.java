package io.s3broadcast.bench.chaos;

/**
 * One adversarial scenario against real {@code node} processes: it starts honest nodes through the
 * {@link ChaosContext}, attacks them from this process as a hostile peer would, and reports what the adversary got
 * and whether the honest nodes still published the exact object. A new scenario (a lying member, say) is one more
 * implementation, listed in {@link ChaosScenarios}.
 */
public interface ChaosScenario {

    /** The name on the command line, e.g. {@code stranger}. */
    String name();

    /** One line for the help and the table. */
    String description();

    /** Runs the scenario; throws only when it could not run at all (a failed defence is a result, not an error). */
    ChaosResult run(ChaosContext context) throws Exception;
}
