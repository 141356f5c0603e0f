package io.s3broadcast.s3;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectInfo;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * What the response to one ranged GET must be: bytes {@code [start, end)} of the object the HEAD saw. Its
 * Content-Range and Content-Length must cover exactly those bytes (else a {@link TransientReadException}, which
 * another attempt may fix), and its ETag and object size must be the HEAD's (else
 * {@link BroadcastException.ObjectChanged}: the object was replaced while it was being fetched).
 */
final class ResponseCheck {

    private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+|\\*)");

    private final ObjectInfo object;
    private final long start;
    private final long end;

    /**
     * @param start first byte asked for
     * @param end one past the last byte asked for
     */
    ResponseCheck(ObjectInfo object, long start, long end) {
        this.object = object;
        this.start = start;
        this.end = end;
    }

    /** The bytes asked for, as {@code bytes a-b} (inclusive, as in HTTP). */
    String range() {
        return "bytes " + start + "-" + (end - 1);
    }

    /** The object as {@code s3://bucket/key}, for messages. */
    String objectName() {
        return "s3://" + object.bucket() + "/" + object.key();
    }

    /** What is wrong with {@code response}, or null when it carries the bytes asked for of the HEAD's object. */
    Throwable problem(GetObjectResponse response) {
        long asked = end - start;
        String eTag = response.eTag();
        if (eTag != null && !ETags.unquote(eTag).equals(ETags.unquote(object.eTag()))) {
            return new BroadcastException.ObjectChanged(objectName() + " changed while it was being fetched: " + range()
                    + " came with ETag " + eTag + ", the HEAD said " + object.eTag() + "; fetch again to get the new version",
                    null);
        }
        String contentRange = response.contentRange();
        if (contentRange == null) {
            if (!(start == 0 && end == object.size())) {
                return new TransientReadException("asked for " + range() + " of " + objectName()
                        + ", the response has no Content-Range");
            }
        } else {
            Matcher m = CONTENT_RANGE.matcher(contentRange.trim());
            if (!m.matches()) {
                return new TransientReadException("asked for " + range() + " of " + objectName()
                        + ", the response has Content-Range " + contentRange);
            }
            if (!m.group(3).equals("*") && Long.parseLong(m.group(3)) != object.size()) {
                return new BroadcastException.ObjectChanged(objectName() + " changed while it was being fetched: it is now "
                        + m.group(3) + " bytes, the HEAD said " + object.size() + "; fetch again to get the new version", null);
            }
            if (Long.parseLong(m.group(1)) != start || Long.parseLong(m.group(2)) != end - 1) {
                return new TransientReadException("asked for " + range() + " of " + objectName()
                        + ", the response has Content-Range " + contentRange);
            }
        }
        Long length = response.contentLength();
        if (length != null && length != asked) {
            return new TransientReadException("asked for " + range() + " (" + asked + " bytes) of " + objectName()
                    + ", the response has Content-Length " + length);
        }
        return null;
    }
}
