package io.s3broadcast.testkit;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

class JUnitVersionTest {

  @Test
  void versionsFrom510OnPass() {
    for (String v : new String[] {"5.10.0", "5.10.3", "5.12.2", "5.14.4", "6.0.0", "5.11.0-M1", null, "dev"}) {
      assertThatCode(() -> JUnitVersion.check(v)).as(v).doesNotThrowAnyException();
    }
  }

  @Test
  void olderVersionsFailNamingTheVersionNeeded() {
    assertThatThrownBy(() -> JUnitVersion.check("5.9.3"))
        .isInstanceOf(ExtensionConfigurationException.class)
        .hasMessageContaining("needs JUnit Jupiter 5.10 or later")
        .hasMessageContaining("5.9.3");
  }
}
