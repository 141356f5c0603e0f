package io.s3broadcast.p2p.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * Fails a test class when Netty's leak detector reports a leak. Surefire runs with paranoid leak detection, but
 * the detector only reports a leaked buffer once the garbage collector has found it and a later allocation polls
 * for it; after the class this extension asks for a collection and allocates, then checks the detector's log.
 * Best effort (a collection cannot be forced), but it turns a log line into a failure.
 */
final class NoLeaks implements BeforeAllCallback, AfterAllCallback {

    private static final ListAppender<ILoggingEvent> LEAKS = new ListAppender<>();

    static {
        Logger logger = (Logger) LoggerFactory.getLogger(ResourceLeakDetector.class);
        LEAKS.setContext(logger.getLoggerContext());
        LEAKS.start();
        logger.addAppender(LEAKS);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        for (int round = 0; round < 3; round++) {
            System.gc();
            for (int i = 0; i < 64; i++) {
                ByteBuf probe = PooledByteBufAllocator.DEFAULT.directBuffer(1);
                probe.release();
            }
        }
        List<String> leaks = LEAKS.list.stream()
                .map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.contains("LEAK"))
                .toList();
        assertThat(leaks).as("Netty leak reports").isEmpty();
    }
}
