package io.s3broadcast.bench.chaos;

import java.util.List;

/**
 * What one node of one trial ended with.
 *
 * @param status {@code completed}, {@code failed} (it printed an error), {@code killed} (by the trial, not
 *     restarted), {@code hung} (no exit within the node timeout) or {@code no-result} (exited without a JSON line)
 * @param errorKind the kind of its error (the exception's simple name), or null
 * @param error its error as printed, or null
 * @param couldComplete whether it could have completed, given the fault
 * @param destination what is at its destination path: {@code exact}, {@code absent}, {@code wrong} (the object's
 *     size, another SHA-256) or {@code partial} (another size)
 * @param leftovers other files in its destination directory after it exited (temporary files), besides the
 *     library's record of a completed fetch ({@code .NAME.s3broadcast})
 * @param detectSeconds a failed node (not a hung one): from the fault (or its fetch's start, when the fault was there from
 *     the start) to its exit; else null
 * @param doneAfterFaultSeconds a completed node: from the fault to its file in place; else null
 * @param s3BytesAfterRestart a restarted node: bytes it read from S3 after the restart (at the proxy); else null
 */
record NodeOutcome(String status, String errorKind, String error, boolean couldComplete, String destination,
        List<String> leftovers, Double detectSeconds, Double doneAfterFaultSeconds, Long s3BytesAfterRestart) {

    boolean completed() {
        return status.equals("completed") || (status.equals("killed") && destination.equals("exact"));
    }
}
