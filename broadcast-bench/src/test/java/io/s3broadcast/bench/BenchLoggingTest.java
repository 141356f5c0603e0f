package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.core.ConsoleAppender;
import org.junit.jupiter.api.Test;

/** The bench's logging set up in code: stderr, INFO, the noisy libraries at WARN. */
class BenchLoggingTest {

    /** A class path without configuration files. */
    private static final ClassLoader NO_FILES = new ClassLoader(null) {
    };

    @Test
    void aLogbackXmlOnTheClassPathWins() {
        ClassLoader withFile = new ClassLoader(null) {
            @Override
            public java.net.URL getResource(String name) {
                return name.equals("logback.xml") ? BenchLoggingTest.class.getResource("BenchLoggingTest.class") : null;
            }
        };
        LoggerContext context = new LoggerContext();
        BenchLogging logging = new BenchLogging(withFile);
        logging.setContext(context);
        assertThat(logging.configure(context)).isEqualTo(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY);
    }

    @Test
    void everyLogGoesToStderrAtInfoAndTheNoisyLibrariesAtWarn() {
        LoggerContext context = new LoggerContext();
        BenchLogging logging = new BenchLogging(NO_FILES);
        logging.setContext(context);
        assertThat(logging.configure(context)).isEqualTo(Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        assertThat(root.getLevel()).isEqualTo(Level.INFO);
        assertThat(((ConsoleAppender<?>) root.getAppender("STDERR")).getTarget()).isEqualTo("System.err");
        assertThat(context.getLogger("org.gaul.s3proxy.S3Proxy").getEffectiveLevel()).isEqualTo(Level.WARN);
        assertThat(context.getLogger("software.amazon.awssdk.core").getEffectiveLevel()).isEqualTo(Level.WARN);
        assertThat(context.getLogger("io.s3broadcast.bench.FleetCommand").getEffectiveLevel()).isEqualTo(Level.INFO);
    }

    @Test
    void aConfigurationFileOfOnesOwnWins() {
        String before = System.getProperty("logback.configurationFile");
        System.setProperty("logback.configurationFile", "mine.xml");
        try {
            LoggerContext context = new LoggerContext();
            BenchLogging logging = new BenchLogging(NO_FILES);
            logging.setContext(context);
            assertThat(logging.configure(context)).isEqualTo(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY);
            assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("STDERR")).isNull();
        } finally {
            if (before == null) {
                System.clearProperty("logback.configurationFile");
            } else {
                System.setProperty("logback.configurationFile", before);
            }
        }
    }
}
