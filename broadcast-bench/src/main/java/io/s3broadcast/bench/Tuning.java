package io.s3broadcast.bench;

/**
 * Transfer settings given on the command line; null means the method's default. Where the Transfer Manager has
 * an equivalent, it gets the same value so the comparison is like for like.
 *
 * @param connections concurrent ranged GETs
 * @param rangeSize bytes per ranged GET (our range, the Transfer Manager's part)
 * @param pieceSize bytes per piece (ours only)
 * @param httpClient {@code netty} or {@code crt} (ours only; the Transfer Manager always runs on CRT)
 * @param targetThroughputGbps the CRT client's target throughput in Gbit/s
 */
record Tuning(Integer connections, Long rangeSize, Long pieceSize, String httpClient, Double targetThroughputGbps) {
}
