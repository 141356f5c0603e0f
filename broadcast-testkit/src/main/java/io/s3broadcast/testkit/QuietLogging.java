package io.s3broadcast.testkit;

import java.lang.reflect.Method;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the embedded S3 server's loggers (S3Proxy, Jetty, jclouds) at WARN, and the HTTP and SDK
 * loggers of the clients the kit uses at INFO, when the test's logging backend is Logback and nobody
 * configured them: Logback without a configuration file logs everything at DEBUG, which for S3Proxy and
 * the wire logs of uploads is hundreds of MB per run. A level set in a configuration file (even DEBUG,
 * on purpose) is left alone, and other backends are left alone (their defaults are quiet).
 * {@code -Ds3broadcast.test.quietLogs=false} turns this off.
 */
final class QuietLogging {

  static final String PROPERTY = "s3broadcast.test.quietLogs";
  static final List<String> SERVER_LOGGERS = List.of("org.gaul", "org.eclipse.jetty", "org.jclouds");
  static final List<String> CLIENT_LOGGERS = List.of("org.apache.hc", "software.amazon.awssdk", "io.netty");

  private static final Logger LOG = LoggerFactory.getLogger(QuietLogging.class);

  private QuietLogging() {}

  static void quietNoisyLoggers() {
    if (Settings.get(PROPERTY, "S3BROADCAST_TEST_QUIET_LOGS").map("false"::equalsIgnoreCase).orElse(false)) {
      return;
    }
    SERVER_LOGGERS.forEach(name -> raise(name, "WARN"));
    CLIENT_LOGGERS.forEach(name -> raise(name, "INFO"));
  }

  private static void raise(String name, String levelName) {
    Logger logger = LoggerFactory.getLogger(name);
    if (!logger.isDebugEnabled() || !logger.getClass().getName().equals("ch.qos.logback.classic.Logger")) {
      return;
    }
    try {
      Method getLevel = logger.getClass().getMethod("getLevel");
      if (getLevel.invoke(logger) != null) {
        return; // configured on purpose
      }
      Class<?> level = Class.forName("ch.qos.logback.classic.Level", true, logger.getClass().getClassLoader());
      logger.getClass().getMethod("setLevel", level).invoke(logger, level.getField(levelName).get(null));
    } catch (ReflectiveOperationException | LinkageError e) {
      LOG.warn(
          "{} logs at DEBUG and could not be set to {} ({}): set its level in your logback-test.xml",
          name,
          levelName,
          e.toString());
    }
  }
}
