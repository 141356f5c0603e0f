package io.s3broadcast.s3;

import java.security.NoSuchAlgorithmException;
import java.time.format.DateTimeFormatterBuilder;
import java.util.Locale;
import javax.crypto.Mac;

/**
 * Pays, when a source is made, one-time costs that a JVM's first S3 request would otherwise pay between sending
 * its HEAD and reading the answer, on the first fetch's critical path: the JCA providers the request signer's
 * first {@code Mac} loads, and the locale data that parsing the first {@code Last-Modified} header loads (the SDK
 * reads it as {@code EEE, dd MMM yyyy HH:mm:ss} in {@code Locale.US}, whose day and month names come from that
 * data). They cost a fleet's node JVM about 9 and 14 ms of CPU after its start (docs/results.md, session 34); a
 * source pays them on its timer thread as it is made, beside whatever the caller does next (session 35).
 */
final class FirstRequestCosts {

    private FirstRequestCosts() {
    }

    static void pay() {
        try {
            Mac.getInstance("HmacSHA256");
        } catch (NoSuchAlgorithmException e) {
            // Nothing loaded then; the signer reports it on the first request.
        }
        new DateTimeFormatterBuilder().parseCaseInsensitive().appendPattern("EEE, dd MMM yyyy HH:mm:ss")
                .toFormatter(Locale.US).parse("Thu, 01 Jan 2026 00:00:00");
    }
}
