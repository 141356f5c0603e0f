package io.s3broadcast.p2p.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.ResourceLeakDetector;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty's leak detector reports a leak during it or right after it. Registered for every
 * test class of this module by JUnit's extension auto-detection ({@code META-INF/services} and
 * {@code junit-platform.properties}). Surefire and failsafe run with paranoid leak detection; before the class
 * this checks that, after it {@link NettyLeaks#collect() collects} and fails on any report. A leak is reported
 * once the collector has found the buffer, so now and then it lands on the next class; the report's access
 * records show where the buffer was.
 */
public final class NoLeaks implements BeforeAllCallback, AfterAllCallback {

    /** The test classes checked so far, so a test can see that the auto-detection works. */
    static final Set<String> CHECKED = ConcurrentHashMap.newKeySet();

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getTestClass().ifPresent(c -> CHECKED.add(c.getName()));
        assertThat(NettyLeaks.installed()).as("the leak recorder is installed (NettyLeakSession)").isTrue();
        assertThat(ResourceLeakDetector.getLevel()).as("Netty's leak detection level (io.netty.leakDetection.level)")
                .isEqualTo(ResourceLeakDetector.Level.PARANOID);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        NettyLeaks.collect();
        List<String> leaks = NettyLeaks.drain();
        assertThat(leaks).as("Netty leak reports after " + context.getDisplayName()).isEmpty();
    }
}
