package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;

class S3ClientsTest {

    @Test
    void autoIsCrtWhenItLoadsElseNetty() {
        assertThat(S3Clients.kind("auto", () -> true)).isEqualTo("crt");
        assertThat(S3Clients.kind("AUTO", () -> false)).isEqualTo("netty");
    }

    @Test
    void nettyAndCrtAreTakenAsTheyAreWithoutAskingWhetherCrtLoads() {
        assertThat(S3Clients.kind("netty", () -> {
            throw new AssertionError("not asked");
        })).isEqualTo("netty");
        assertThat(S3Clients.kind("Crt", () -> {
            throw new AssertionError("not asked");
        })).isEqualTo("crt");
    }

    @Test
    void anotherClientIsRefusedNamingTheChoices() {
        assertThatThrownBy(() -> S3Clients.kind("apache", () -> true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'apache'")
                .hasMessageContaining("auto, netty or crt");
    }

    @Test
    void crtLoadsOnThisClassPathAndNotWithoutIt() {
        // aws-crt-client and aws-crt are optional dependencies, so on the test class path; this platform has the native library.
        assertThat(CrtLoads.loads()).isTrue();
        try (URLClassLoader bare = new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader())) {
            assertThat(CrtLoads.check(bare)).isFalse();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void closingACrtClientStopsCrtsSharedEventLoopsBeforeItReturns() throws Exception {
        S3Clients.Built built = S3Clients.build(S3ObjectSourceProviderTest.config(null, "crt"));
        java.util.concurrent.CompletableFuture<Void> eventLoops = CrtHttpClient.staticEventLoopShutdown();
        assertThat(eventLoops).as("the SDK's CRT client runs on CRT's static event loop group").isNotNull();
        assertThat(eventLoops).isNotDone();

        built.closer().close();

        // Stopped, not only asked to stop: a JVM exiting now has no CRT cleanup thread left to wait for.
        assertThat(eventLoops).isDone();
        assertThat(CrtHttpClient.staticEventLoopShutdown()).isNull();
    }
}
