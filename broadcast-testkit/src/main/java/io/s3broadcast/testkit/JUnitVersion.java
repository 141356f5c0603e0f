package io.s3broadcast.testkit;

import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;

/** The JUnit Jupiter on the classpath is one the test kit works with (5.10 or later), or a clear failure. */
final class JUnitVersion {

  static final int MIN_MAJOR = 5;
  static final int MIN_MINOR = 10;

  private JUnitVersion() {}

  static void check() {
    check(ExtensionContext.class.getPackage().getImplementationVersion());
  }

  /** Throws when {@code version} (e.g. {@code 5.9.3}) is older than 5.10; unknown versions pass. */
  static void check(String version) {
    if (version == null) {
      return;
    }
    String[] parts = version.split("[.-]");
    try {
      int major = Integer.parseInt(parts[0]);
      int minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
      if (major < MIN_MAJOR || (major == MIN_MAJOR && minor < MIN_MINOR)) {
        throw new ExtensionConfigurationException(
            "broadcast-testkit needs JUnit Jupiter "
                + MIN_MAJOR
                + "."
                + MIN_MINOR
                + " or later, but junit-jupiter-api "
                + version
                + " is on the test classpath: import org.junit:junit-bom:5.10.0 (or newer) in"
                + " dependencyManagement");
      }
    } catch (NumberFormatException unparsable) {
      // A build of JUnit without a release number: assume it is recent.
    }
  }
}
