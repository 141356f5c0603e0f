package io.s3broadcast.s3;

import static io.s3broadcast.s3.Failures.Kind.ACCESS_DENIED;
import static io.s3broadcast.s3.Failures.Kind.CANCELLED;
import static io.s3broadcast.s3.Failures.Kind.FATAL;
import static io.s3broadcast.s3.Failures.Kind.NOT_FOUND;
import static io.s3broadcast.s3.Failures.Kind.OBJECT_CHANGED;
import static io.s3broadcast.s3.Failures.Kind.RETRY;
import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.BroadcastException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

class FailuresTest {

    static S3Exception s3(int status, String code) {
        return (S3Exception) ((FakeS3Client.Fail) FakeS3Client.status(status, code)).error();
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({
        "500, InternalError, RETRY",
        "503, SlowDown, RETRY",
        "503, ServiceUnavailable, RETRY",
        "502, , RETRY",
        "504, , RETRY",
        "429, , RETRY",
        "400, RequestTimeout, RETRY",
        "412, PreconditionFailed, OBJECT_CHANGED",
        "404, NoSuchKey, NOT_FOUND",
        "404, NoSuchBucket, NOT_FOUND",
        "404, , NOT_FOUND",
        "403, AccessDenied, ACCESS_DENIED",
        "403, InvalidAccessKeyId, ACCESS_DENIED",
        "403, SignatureDoesNotMatch, ACCESS_DENIED",
        "400, ExpiredToken, ACCESS_DENIED",
        "400, AuthorizationHeaderMalformed, ACCESS_DENIED",
        "301, PermanentRedirect, ACCESS_DENIED",
        "403, , ACCESS_DENIED",
        "416, InvalidRange, FATAL",
        "400, InvalidArgument, FATAL",
        "501, NotImplemented, FATAL",
    })
    void classifiesServiceErrors(int status, String code, Failures.Kind expected) {
        assertThat(Failures.classifyService(status, code)).isEqualTo(expected);
        // Through the wrapping a future adds.
        assertThat(Failures.classify(new CompletionException(s3(status, code == null ? "" : code)))).isEqualTo(expected);
    }

    @Test
    void networkTroubleIsRetried() {
        assertThat(Failures.classify(SdkClientException.create("Unable to execute HTTP request",
                new SocketException("Connection reset")))).isEqualTo(RETRY);
        assertThat(Failures.classify(new CompletionException(SdkClientException.create("x",
                new ConnectException("Connection refused"))))).isEqualTo(RETRY);
        assertThat(Failures.classify(new IOException("Premature close"))).isEqualTo(RETRY);
        assertThat(Failures.classify(new TransientReadException("stalled"))).isEqualTo(RETRY);
        assertThat(Failures.classify(SdkClientException.create("acquire", new TimeoutException("pool")))).isEqualTo(RETRY);
        assertThat(Failures.classify(ApiCallAttemptTimeoutException.create(30_000))).isEqualTo(RETRY);
    }

    @Test
    void localFailuresAndBugsAreNotRetried() {
        assertThat(Failures.classify(new BroadcastException.DestinationUnusable("disk full", null))).isEqualTo(FATAL);
        assertThat(Failures.classify(SdkClientException.create("wrapped", new BroadcastException("listener threw"))))
                .isEqualTo(FATAL);
        assertThat(Failures.classify(new NullPointerException())).isEqualTo(FATAL);
        assertThat(Failures.classify(SdkClientException.create("Unable to load credentials from any of the providers")))
                .isEqualTo(ACCESS_DENIED);
        assertThat(Failures.classify(new CompletionException(new CancellationException()))).isEqualTo(CANCELLED);
        assertThat(Failures.classify(new BroadcastException.ObjectChanged("etag", null))).isEqualTo(OBJECT_CHANGED);
        assertThat(Failures.classify(new BroadcastException.ObjectNotFound("gone", null))).isEqualTo(NOT_FOUND);
    }

    @Test
    void errorsNameTheObjectTheRangeAndWhatToDo() {
        S3Exception slowDown = s3(503, "SlowDown");
        assertThat(Failures.toBroadcastException(RETRY, slowDown, "b", "k", "\"e\"", "bytes 0-99", 10))
                .isExactlyInstanceOf(BroadcastException.class)
                .hasMessage("bytes 0-99 of s3://b/k failed after 10 attempts: 503 SlowDown: SlowDown from the fake")
                .hasCause(slowDown);
        assertThat(Failures.toBroadcastException(OBJECT_CHANGED, s3(412, "PreconditionFailed"), "b", "k", "\"e\"",
                "bytes 0-99", 1))
                .isInstanceOf(BroadcastException.ObjectChanged.class)
                .hasMessageContaining("s3://b/k changed").hasMessageContaining("If-Match: \"e\"")
                .hasMessageContaining("fetch again");
        assertThat(Failures.toBroadcastException(NOT_FOUND, s3(404, "NoSuchBucket"), "b", "k", "\"e\"", "bytes 0-99", 1))
                .isInstanceOf(BroadcastException.ObjectNotFound.class).hasMessageStartingWith("bucket b does not exist");
        assertThat(Failures.toBroadcastException(NOT_FOUND, s3(404, "NoSuchKey"), "b", "k", "\"e\"", "bytes 0-99", 1))
                .isInstanceOf(BroadcastException.ObjectNotFound.class).hasMessageStartingWith("s3://b/k does not exist");
        assertThat(Failures.toBroadcastException(ACCESS_DENIED, s3(403, "InvalidAccessKeyId"), "b", "k", "\"e\"",
                "HEAD", 1))
                .isInstanceOf(BroadcastException.AccessDenied.class)
                .hasMessageContaining("403 InvalidAccessKeyId")
                .hasMessageContaining("check credentials/region; the principal needs s3:GetObject on arn:aws:s3:::b/k");
        BroadcastException local = new BroadcastException.DestinationUnusable("disk full", null);
        assertThat(Failures.toBroadcastException(FATAL, new CompletionException(local), "b", "k", "", "x", 1)).isSameAs(local);
    }

    @Test
    void describesNetworkErrorsWithTheirRootCause() {
        assertThat(Failures.describe(SdkClientException.create("Unable to execute HTTP request",
                new SocketException("Connection reset"))))
                .isEqualTo("SdkClientException: Unable to execute HTTP request (caused by java.net.SocketException: "
                        + "Connection reset)");
    }
}
