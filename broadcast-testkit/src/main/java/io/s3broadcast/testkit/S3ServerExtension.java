package io.s3broadcast.testkit;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestInstantiationAwareExtension;

/**
 * JUnit 5 extension giving tests a real S3 server, the one named by {@code -Ds3broadcast.test.backend}
 * (see {@link S3Backend}), started once per JVM.
 *
 * <p>It injects:
 *
 * <ul>
 *   <li>{@link S3Fixture} into test and lifecycle method parameters, constructor parameters, and
 *       non-static, non-final fields of that type: one fixture (fresh bucket, clients) per test method, closed and
 *       cleaned after it. Asked for in a {@code @BeforeAll} method, it is one fixture for the class.
 *   <li>{@link S3Server} parameters: the shared server itself.
 * </ul>
 *
 * <p>The server is started before the first test of the class, so a backend that cannot start fails
 * the class with the reason (or, for {@code testcontainers} without Docker, skips it).
 */
public final class S3ServerExtension
    implements BeforeAllCallback, BeforeEachCallback, ParameterResolver, TestInstantiationAwareExtension {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(S3ServerExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    server();
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IllegalAccessException {
    for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
      for (Class<?> type = instance.getClass(); type != Object.class; type = type.getSuperclass()) {
        for (Field field : type.getDeclaredFields()) {
          int modifiers = field.getModifiers();
          // Final fields were set by the constructor (from this same fixture, if injected there).
          if (field.getType() == S3Fixture.class
              && !Modifier.isStatic(modifiers)
              && !Modifier.isFinal(modifiers)) {
            field.setAccessible(true);
            field.set(instance, fixture(context));
          }
        }
      }
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == S3Fixture.class || type == S3Server.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    try {
      return type == S3Server.class ? server() : fixture(context);
    } catch (RuntimeException e) {
      throw new ParameterResolutionException("no " + type.getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  /** Constructor injection under the default lifecycle gets the test method's context. */
  @Override
  public ExtensionContextScope getTestInstantiationExtensionContextScope(ExtensionContext root) {
    return ExtensionContextScope.TEST_METHOD;
  }

  private static S3Server server() {
    return S3Backend.selected().shared();
  }

  /** One fixture per context (test method, or class for {@code @BeforeAll}), closed with it. */
  private static S3Fixture fixture(ExtensionContext context) {
    // Keyed by unique id: a method must not pick up its class's @BeforeAll fixture from the parent store.
    String key = "fixture@" + context.getUniqueId();
    return context
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            key, k -> S3Fixture.create(server(), testName(context)), S3Fixture.class);
  }

  private static String testName(ExtensionContext context) {
    return context
        .getTestMethod()
        .map(m -> m.getName())
        .orElseGet(() -> context.getTestClass().map(Class::getSimpleName).orElse("test"));
  }
}
