package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectInfo;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/** Which responses to a ranged GET carry the bytes asked for of the HEAD's object. */
class ResponseCheckTest {

    private static final ObjectInfo OBJECT = new ObjectInfo("b", "k", 1000, "\"abc\"", Optional.empty());
    private final ResponseCheck check = new ResponseCheck(OBJECT, 100, 200);

    private static GetObjectResponse response(String eTag, String contentRange, Long length) {
        return GetObjectResponse.builder().eTag(eTag).contentRange(contentRange).contentLength(length).build();
    }

    @Test
    void theBytesAskedForPass() {
        assertThat(check.problem(response("\"abc\"", "bytes 100-199/1000", 100L))).isNull();
        // Another spelling of the same ETag, and a server that does not say the size, pass too.
        assertThat(check.problem(response("W/abc", "bytes 100-199/*", 100L))).isNull();
        assertThat(check.problem(response(null, "bytes 100-199/1000", null))).isNull();
        assertThat(check.range()).isEqualTo("bytes 100-199");
        assertThat(check.objectName()).isEqualTo("s3://b/k");
    }

    @Test
    void anotherETagOrSizeIsTheObjectChanged() {
        assertThat(check.problem(response("\"def\"", "bytes 100-199/1000", 100L)))
                .isInstanceOf(BroadcastException.ObjectChanged.class).hasMessageContaining("came with ETag \"def\"");
        assertThat(check.problem(response("\"abc\"", "bytes 100-199/2000", 100L)))
                .isInstanceOf(BroadcastException.ObjectChanged.class).hasMessageContaining("it is now 2000 bytes");
    }

    @Test
    void otherBytesAreWorthAnotherAttempt() {
        assertThat(check.problem(response("\"abc\"", "bytes 0-99/1000", 100L)))
                .isInstanceOf(TransientReadException.class).hasMessageContaining("Content-Range bytes 0-99/1000");
        assertThat(check.problem(response("\"abc\"", "items 100-199", 100L)))
                .isInstanceOf(TransientReadException.class);
        assertThat(check.problem(response("\"abc\"", "bytes 100-199/1000", 99L)))
                .isInstanceOf(TransientReadException.class).hasMessageContaining("Content-Length 99");
        assertThat(check.problem(response("\"abc\"", null, 100L)))
                .isInstanceOf(TransientReadException.class).hasMessageContaining("no Content-Range");
    }

    @Test
    void noContentRangeIsFineForTheWholeObject() {
        ResponseCheck whole = new ResponseCheck(OBJECT, 0, 1000);
        assertThat(whole.problem(response("\"abc\"", null, 1000L))).isNull();
    }

    @Test
    void eTagsCompareWithoutQuotesOrWeakMarker() {
        assertThat(ETags.unquote(" W/\"abc-2\" ")).isEqualTo("abc-2");
        assertThat(ETags.unquote("abc")).isEqualTo("abc");
        assertThat(ETags.unquote("\"")).isEqualTo("\"");
    }
}
