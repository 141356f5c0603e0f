package io.s3broadcast.s3;

/**
 * A ranged read as its fetch measures it, to tell the rate a new GET may expect and which read to hedge
 * ({@link ReadRates}, {@link HedgeChoice}). {@link RangeReader} is the one the fetch runs.
 *
 * <p>Threads: read from any thread while the read goes on; each value may change between two calls.
 */
interface ReadProgress {

    /** When it started (ticker nanos). */
    long startNanos();

    /** When its first byte came (ticker nanos), or -1 while none has. */
    long firstByteNanos();

    /** Bytes received over every attempt, for its rate. */
    long received();

    /** The byte it is at: bytes before it are written (or being read by the attempt in flight). */
    long position();

    /** One past the last byte it is to read. */
    long endByte();
}
