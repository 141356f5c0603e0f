package io.s3broadcast.bench;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.List;

/**
 * The bench's logging, set up in code (found by logback through {@code ServiceLoader}) rather than from a
 * {@code logback.xml}: parsing XML cost a node JVM about 0.08 CPU-s at start-up (docs/bench.md, "Node JVMs").
 * Every log goes to stderr, since stdout carries the table and the JSON line; INFO, with S3Proxy, Jetty and
 * jclouds (which write hundreds of MB at DEBUG), Netty and the SDK at WARN. A configuration of one's own still
 * wins: with {@code -Dlogback.configurationFile} or a {@code logback-test.xml} / {@code logback.xml} on the class
 * path, logback's own configurators read it instead.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class BenchLogging extends ContextAwareBase implements Configurator {

    static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{24} - %msg%n";
    static final List<String> AT_WARN = List.of("org.gaul", "org.eclipse.jetty", "org.jclouds", "io.netty",
            "software.amazon.awssdk");

    private final ClassLoader loader;

    /** As logback makes it (through {@code ServiceLoader}): looks for configuration files on the bench's class path. */
    public BenchLogging() {
        this(BenchLogging.class.getClassLoader());
    }

    /** Looks for configuration files through {@code loader}. */
    BenchLogging(ClassLoader loader) {
        this.loader = loader;
    }

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null || loader.getResource("logback-test.xml") != null
                || loader.getResource("logback.xml") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("STDERR");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(stderr);
        for (String name : AT_WARN) {
            context.getLogger(name).setLevel(Level.WARN);
        }
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
