package io.s3broadcast;

import java.time.Duration;

/**
 * A snapshot of a fetch in progress.
 *
 * @param totalBytes the object's size, or -1 before the object has been looked up
 * @param transferredBytes bytes of the object present locally in completed pieces
 * @param totalPieces number of pieces, or -1 before the object has been looked up
 * @param completedPieces pieces present locally
 * @param bytesFromS3 bytes read from S3 so far, retried reads included
 * @param elapsed time since the fetch started
 * @param bytesPerSecond the recent rate at which pieces complete
 */
public record FetchProgress(
        long totalBytes,
        long transferredBytes,
        int totalPieces,
        int completedPieces,
        long bytesFromS3,
        Duration elapsed,
        double bytesPerSecond) {

    /** Fraction done in [0, 1], or 0 while the size is unknown; 1 for an empty object once looked up. */
    public double ratioTransferred() {
        if (totalBytes < 0) {
            return 0;
        }
        return totalBytes == 0 ? 1 : (double) transferredBytes / totalBytes;
    }
}
